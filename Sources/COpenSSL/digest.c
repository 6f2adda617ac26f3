// SHA-256 over bytes that come in pieces: the name of a large representation's file in the history
// (PasteboardStore/SHA256.swift), hashed as it is read in bounded chunks. OpenSSL's EVP digest, which
// uses the CPU's SHA instructions where it has them (after kc_start's probe).
#include "copenssl.h"

#include <openssl/evp.h>

kc_sha256_context *kc_sha256_begin(void) {
    kc_start();
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return NULL;
    if (EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return (kc_sha256_context *)context;
}

int kc_sha256_update(kc_sha256_context *context, const void *bytes, size_t length) {
    if (!context) return KC_ERROR;
    if (length == 0) return KC_OK;
    return EVP_DigestUpdate((EVP_MD_CTX *)context, bytes, length) == 1 ? KC_OK : KC_ERROR;
}

int kc_sha256_end(kc_sha256_context *context, unsigned char digest[32]) {
    if (!context) return KC_ERROR;
    unsigned int size = 0;
    int status = EVP_DigestFinal_ex((EVP_MD_CTX *)context, digest, &size) == 1 && size == 32 ? KC_OK : KC_ERROR;
    EVP_MD_CTX_free((EVP_MD_CTX *)context);
    return status;
}

void kc_sha256_free(kc_sha256_context *context) { EVP_MD_CTX_free((EVP_MD_CTX *)context); }
