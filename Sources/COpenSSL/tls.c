// TLS over a non-blocking socket: every call returns at once with what it waits for.
#include "copenssl.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kc_tls {
    SSL_CTX *context;
    SSL *ssl;
    char error[240];
};

// Peer certificates are self-signed by design: the handshake takes any, the caller pins them.
static int accept_any(int preverified, X509_STORE_CTX *store) {
    (void)preverified;
    (void)store;
    return 1;
}

static void remember(kc_tls *tls, const char *what) {
    unsigned long code = ERR_get_error();
    char detail[160] = "";
    if (code) ERR_error_string_n(code, detail, sizeof detail);
    snprintf(tls->error, sizeof tls->error, "%s%s%s", what, detail[0] ? ": " : "", detail);
    ERR_clear_error();
}

kc_tls *kc_tls_new(int fd, int server, const char *certificate_pem, size_t certificate_length, const char *key_pem,
                   size_t key_length, char *error, size_t error_length) {
    kc_start();
    kc_tls *tls = calloc(1, sizeof *tls);
    if (!tls) {
        snprintf(error, error_length, "out of memory");
        return NULL;
    }
    X509 *certificate = NULL;
    EVP_PKEY *key = NULL;
    BIO *bio = NULL;
    tls->context = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!tls->context) { remember(tls, "SSL_CTX_new"); goto failed; }
    SSL_CTX_set_min_proto_version(tls->context, TLS1_2_VERSION);
    // No session tickets or caching: each link is its own handshake.
    SSL_CTX_set_session_cache_mode(tls->context, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(tls->context, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
    // Writes may take part of a buffer, and the caller's buffer may move between retries.
    SSL_CTX_set_mode(tls->context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    bio = BIO_new_mem_buf(certificate_pem, (int)certificate_length);
    certificate = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    bio = BIO_new_mem_buf(key_pem, (int)key_length);
    key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    if (!certificate || !key) { remember(tls, "the device certificate or key cannot be read"); goto failed; }
    if (SSL_CTX_use_certificate(tls->context, certificate) != 1 || SSL_CTX_use_PrivateKey(tls->context, key) != 1
        || SSL_CTX_check_private_key(tls->context) != 1) {
        remember(tls, "the device certificate and key do not go together");
        goto failed;
    }
    // Ask for the peer's certificate both ways (a server must ask; a client always gets one), and
    // refuse a peer without one.
    SSL_CTX_set_verify(tls->context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any);
    tls->ssl = SSL_new(tls->context);
    if (!tls->ssl || SSL_set_fd(tls->ssl, fd) != 1) { remember(tls, "SSL_new"); goto failed; }
    if (server) SSL_set_accept_state(tls->ssl); else SSL_set_connect_state(tls->ssl);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return tls;
failed:
    snprintf(error, error_length, "%s", tls->error);
    X509_free(certificate);
    EVP_PKEY_free(key);
    kc_tls_free(tls);
    return NULL;
}

static int outcome(kc_tls *tls, int result, const char *what) {
    int code = SSL_get_error(tls->ssl, result);
    switch (code) {
    case SSL_ERROR_WANT_READ: return KC_WANT_READ;
    case SSL_ERROR_WANT_WRITE: return KC_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: return KC_CLOSED;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0) {
            snprintf(tls->error, sizeof tls->error, "%s: the connection ended", what);
            return KC_CLOSED;
        }
        remember(tls, what);
        return KC_ERROR;
    default:
        remember(tls, what);
        return KC_ERROR;
    }
}

int kc_tls_handshake(kc_tls *tls) {
    ERR_clear_error();
    int result = SSL_do_handshake(tls->ssl);
    if (result == 1) return KC_OK;
    int status = outcome(tls, result, "TLS handshake");
    return status == KC_CLOSED ? KC_ERROR : status;
}

int kc_tls_read(kc_tls *tls, void *buffer, size_t length, size_t *count) {
    ERR_clear_error();
    *count = 0;
    int result = SSL_read_ex(tls->ssl, buffer, length, count) ? 1 : 0;
    if (result == 1) return KC_OK;
    return outcome(tls, result, "TLS read");
}

int kc_tls_write(kc_tls *tls, const void *buffer, size_t length, size_t *count) {
    ERR_clear_error();
    *count = 0;
    int result = SSL_write_ex(tls->ssl, buffer, length, count) ? 1 : 0;
    if (result == 1) return KC_OK;
    return outcome(tls, result, "TLS write");
}

int kc_tls_pending(kc_tls *tls) { return SSL_pending(tls->ssl); }

int kc_tls_peer_certificate(kc_tls *tls, unsigned char **der, size_t *der_length) {
    *der = NULL;
    X509 *peer = SSL_get1_peer_certificate(tls->ssl);
    if (!peer) return KC_ERROR;
    int size = i2d_X509(peer, NULL);
    unsigned char *out = size > 0 ? malloc((size_t)size) : NULL;
    if (!out) {
        X509_free(peer);
        return KC_ERROR;
    }
    unsigned char *cursor = out;
    i2d_X509(peer, &cursor);
    X509_free(peer);
    *der = out;
    *der_length = (size_t)size;
    return KC_OK;
}

const char *kc_tls_version(kc_tls *tls) { return SSL_get_version(tls->ssl); }

const char *kc_tls_error(kc_tls *tls) { return tls->error; }

void kc_tls_free(kc_tls *tls) {
    if (!tls) return;
    if (tls->ssl) {
        if (SSL_is_init_finished(tls->ssl)) (void)SSL_shutdown(tls->ssl);
        SSL_free(tls->ssl);
    }
    SSL_CTX_free(tls->context);
    ERR_clear_error();
    free(tls);
}
