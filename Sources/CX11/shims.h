#ifndef CX11_SHIMS_H
#define CX11_SHIMS_H
#include <xcb/xcb.h>
#include <xcb/xfixes.h>
#include <xcb/bigreq.h>
#include <string.h>
#include <unistd.h>

// xcb_xfixes_id is a mutable C global; Swift 6 strict concurrency rejects taking its address.
static inline const xcb_query_extension_reply_t *cx11_xfixes_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_xfixes_id);
}

// xcb_send_event copies 32 bytes from its event pointer, but SelectionNotify is 24 bytes: send it from a
// zero-filled 32-byte buffer (reference §1.2; Qt's q_padded_xcb_event).
static inline xcb_void_cookie_t cx11_send_selection_notify(xcb_connection_t *c, xcb_window_t requestor,
    xcb_atom_t selection, xcb_atom_t target, xcb_atom_t property, xcb_timestamp_t time) {
    char buffer[32];
    memset(buffer, 0, sizeof buffer);
    xcb_selection_notify_event_t *event = (xcb_selection_notify_event_t *)buffer;
    event->response_type = XCB_SELECTION_NOTIFY;
    event->time = time;
    event->requestor = requestor;
    event->selection = selection;
    event->target = target;
    event->property = property;
    return xcb_send_event(c, 0, requestor, XCB_EVENT_MASK_NO_EVENT, buffer);
}

// The ICCCM §2.8 MANAGER announcement: a 32-byte ClientMessage to the root window.
static inline xcb_void_cookie_t cx11_send_manager_message(xcb_connection_t *c, xcb_window_t root,
    xcb_atom_t manager, xcb_timestamp_t time, xcb_atom_t selection, xcb_window_t owner) {
    char buffer[32];
    memset(buffer, 0, sizeof buffer);
    xcb_client_message_event_t *event = (xcb_client_message_event_t *)buffer;
    event->response_type = XCB_CLIENT_MESSAGE;
    event->format = 32;
    event->window = root;
    event->type = manager;
    event->data.data32[0] = time;
    event->data.data32[1] = selection;
    event->data.data32[2] = owner;
    return xcb_send_event(c, 0, root, XCB_EVENT_MASK_STRUCTURE_NOTIFY, buffer);
}

// Events arrive as xcb_generic_event_t; Swift cannot cast between C struct pointer types directly.
static inline const xcb_selection_request_event_t *cx11_as_selection_request(const xcb_generic_event_t *e) {
    return (const xcb_selection_request_event_t *)e;
}
static inline const xcb_selection_notify_event_t *cx11_as_selection_notify(const xcb_generic_event_t *e) {
    return (const xcb_selection_notify_event_t *)e;
}
static inline const xcb_selection_clear_event_t *cx11_as_selection_clear(const xcb_generic_event_t *e) {
    return (const xcb_selection_clear_event_t *)e;
}
static inline const xcb_property_notify_event_t *cx11_as_property_notify(const xcb_generic_event_t *e) {
    return (const xcb_property_notify_event_t *)e;
}
static inline const xcb_destroy_notify_event_t *cx11_as_destroy_notify(const xcb_generic_event_t *e) {
    return (const xcb_destroy_notify_event_t *)e;
}
static inline const xcb_client_message_event_t *cx11_as_client_message(const xcb_generic_event_t *e) {
    return (const xcb_client_message_event_t *)e;
}
static inline const xcb_xfixes_selection_notify_event_t *cx11_as_xfixes_selection_notify(const xcb_generic_event_t *e) {
    return (const xcb_xfixes_selection_notify_event_t *)e;
}
static inline const xcb_generic_error_t *cx11_as_error(const xcb_generic_event_t *e) {
    return (const xcb_generic_error_t *)e;
}

#endif
