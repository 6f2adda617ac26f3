#ifndef COPENSSL_H
#define COPENSSL_H

// OpenSSL behind a few functions with plain status codes, for pbctl's KDE Connect links and the
// history's thumbnail keys. A device identity (an RSA-2048 key and a self-signed certificate
// whose common name is the device id, as KDE Connect makes them), SHA-256 (whole or in pieces), and TLS
// over a non-blocking socket the caller polls: every call returns at once, saying whether it needs the
// socket readable or writable. Peer certificates are requested and never verified here: the caller pins
// them (a device is trusted by its certificate's fingerprint). Only Sources/KDEConnect/Connection and
// Sources/PasteboardStore/OpenSSLSHA256.swift call these (scripts/check-source.sh). Every buffer handed back is
// malloc'ed and the caller's (free with kc_free).

#include <stddef.h>
#include <stdint.h>

typedef enum {
    KC_OK = 0,
    /// Call again once the socket is readable.
    KC_WANT_READ = 1,
    /// Call again once the socket is writable.
    KC_WANT_WRITE = 2,
    /// The peer closed the TLS session (or the connection ended cleanly).
    KC_CLOSED = 3,
    /// A failure; kc_tls_error or the error buffer says what.
    KC_ERROR = 4,
} kc_status;

/// Runs OpenSSL's CPU probe once, if the link deferred it (cpuid.c). Every function here that reaches
/// OpenSSL calls it first; callers need not.
void kc_start(void);

/// Makes an RSA-2048 key and a self-signed X.509 certificate (SHA-256, O=KDE, OU=Kde connect,
/// CN=common_name, valid from a year ago for ten years), both as PEM.
int kc_generate_identity(const char *common_name, char **key_pem, size_t *key_length, char **certificate_pem,
                         size_t *certificate_length, char *error, size_t error_length);

/// The DER bytes of a PEM certificate, checked to match the PEM private key when one is given.
int kc_certificate_der(const char *certificate_pem, size_t certificate_length, const char *key_pem, size_t key_length,
                       unsigned char **der, size_t *der_length, char *error, size_t error_length);

/// The subject common name of a DER certificate (UTF-8, at most name_length - 1 bytes, NUL-terminated).
int kc_der_common_name(const unsigned char *der, size_t der_length, char *name, size_t name_length);

/// SHA-256 of the bytes.
void kc_sha256(const void *bytes, size_t length, unsigned char digest[32]);

typedef struct kc_sha256_context kc_sha256_context;

/// SHA-256 over bytes given in pieces: begin (NULL when out of memory), update any number of times,
/// then end, which writes the digest and frees the context (free it instead to abandon it).
kc_sha256_context *kc_sha256_begin(void);
int kc_sha256_update(kc_sha256_context *context, const void *bytes, size_t length);
int kc_sha256_end(kc_sha256_context *context, unsigned char digest[32]);
void kc_sha256_free(kc_sha256_context *context);

typedef struct kc_tls kc_tls;

/// A TLS session over the connected, non-blocking socket fd (not closed by kc_tls_free), as the server
/// or the client, presenting the PEM certificate and key and asking the peer for its certificate.
kc_tls *kc_tls_new(int fd, int server, const char *certificate_pem, size_t certificate_length, const char *key_pem,
                   size_t key_length, char *error, size_t error_length);

/// Advances the handshake: KC_OK once done.
int kc_tls_handshake(kc_tls *tls);

/// Reads up to length bytes: KC_OK with *count > 0, or a wait, KC_CLOSED, KC_ERROR.
int kc_tls_read(kc_tls *tls, void *buffer, size_t length, size_t *count);

/// Writes up to length bytes (at most one record's worth may be taken): KC_OK with *count > 0, or a wait.
int kc_tls_write(kc_tls *tls, const void *buffer, size_t length, size_t *count);

/// Decrypted bytes waiting inside the session (read them before polling the socket again).
int kc_tls_pending(kc_tls *tls);

/// The peer's certificate as DER (after the handshake); KC_ERROR when it sent none.
int kc_tls_peer_certificate(kc_tls *tls, unsigned char **der, size_t *der_length);

/// The protocol version negotiated ("TLSv1.3"…), for logs.
const char *kc_tls_version(kc_tls *tls);

/// The last failure, one line.
const char *kc_tls_error(kc_tls *tls);

/// Sends close_notify when it can without waiting, then frees the session (the socket stays open).
void kc_tls_free(kc_tls *tls);

void kc_free(void *pointer);

#endif
