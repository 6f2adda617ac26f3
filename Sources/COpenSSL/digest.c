// SHA-256 over bytes that come in pieces: the key of an inline picture's thumbnail in the history
// (PasteboardStore/OpenSSLSHA256.swift), hashed a chunk at a time. OpenSSL's SHA256_* functions,
// which use the CPU's SHA instructions where it has them (after kc_start's probe). Not the EVP
// interface: fetching a digest through EVP initializes OpenSSL's library context and default provider,
// about 4 MB of memory and a start-up cost a copy does not need for one fixed algorithm.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "copenssl.h"

#include <openssl/sha.h>
#include <stdlib.h>

struct kc_sha256_context {
    SHA256_CTX state;
};

kc_sha256_context *kc_sha256_begin(void) {
    kc_start();
    kc_sha256_context *context = malloc(sizeof *context);
    if (!context) return NULL;
    if (SHA256_Init(&context->state) != 1) {
        free(context);
        return NULL;
    }
    return context;
}

int kc_sha256_update(kc_sha256_context *context, const void *bytes, size_t length) {
    if (!context) return KC_ERROR;
    if (length == 0) return KC_OK;
    return SHA256_Update(&context->state, bytes, length) == 1 ? KC_OK : KC_ERROR;
}

int kc_sha256_end(kc_sha256_context *context, unsigned char digest[32]) {
    if (!context) return KC_ERROR;
    int status = SHA256_Final(digest, &context->state) == 1 ? KC_OK : KC_ERROR;
    free(context);
    return status;
}

void kc_sha256_free(kc_sha256_context *context) { free(context); }
