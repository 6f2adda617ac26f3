// Device identities: an RSA-2048 key and a self-signed certificate, as KDE Connect makes them.
#include "copenssl.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *error, size_t length, const char *what) {
    if (error && length) {
        unsigned long code = ERR_get_error();
        char detail[200] = "";
        if (code) ERR_error_string_n(code, detail, sizeof detail);
        snprintf(error, length, "%s%s%s", what, detail[0] ? ": " : "", detail);
    }
    ERR_clear_error();
    return KC_ERROR;
}

// The bytes a memory BIO holds, copied into a malloc'ed, NUL-terminated buffer.
static int take_bio(BIO *bio, char **out, size_t *length) {
    char *data = NULL;
    long size = BIO_get_mem_data(bio, &data);
    if (size <= 0) return 0;
    char *copy = malloc((size_t)size + 1);
    if (!copy) return 0;
    memcpy(copy, data, (size_t)size);
    copy[size] = 0;
    *out = copy;
    *length = (size_t)size;
    return 1;
}

int kc_generate_identity(const char *common_name, char **key_pem, size_t *key_length, char **certificate_pem,
                         size_t *certificate_length, char *error, size_t error_length) {
    kc_start();
    int status = KC_ERROR;
    EVP_PKEY *key = NULL;
    X509 *certificate = NULL;
    BIO *key_bio = NULL, *certificate_bio = NULL;
    *key_pem = NULL;
    *certificate_pem = NULL;

    key = EVP_RSA_gen(2048);
    if (!key) { fail(error, error_length, "RSA key generation failed"); goto done; }
    certificate = X509_new();
    if (!certificate) { fail(error, error_length, "X509_new failed"); goto done; }
    X509_set_version(certificate, 2);
    // A random positive serial number.
    unsigned char serial[16];
    if (RAND_bytes(serial, sizeof serial) != 1) { fail(error, error_length, "no random bytes"); goto done; }
    serial[0] &= 0x7F;
    BIGNUM *number = BN_bin2bn(serial, sizeof serial, NULL);
    if (!number || !BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate))) {
        BN_free(number);
        fail(error, error_length, "serial number");
        goto done;
    }
    BN_free(number);
    // Valid from a year ago (clocks differ) for ten years, as KDE Connect's own.
    X509_gmtime_adj(X509_getm_notBefore(certificate), -365L * 24 * 3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 9L * 365 * 24 * 3600);
    X509_NAME *name = X509_get_subject_name(certificate);
    if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"KDE", -1, -1, 0)
        || !X509_NAME_add_entry_by_txt(name, "OU", MBSTRING_UTF8, (const unsigned char *)"Kde connect", -1, -1, 0)
        || !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0)) {
        fail(error, error_length, "certificate subject");
        goto done;
    }
    X509_set_issuer_name(certificate, name);
    if (!X509_set_pubkey(certificate, key) || !X509_sign(certificate, key, EVP_sha256())) {
        fail(error, error_length, "certificate signature");
        goto done;
    }
    key_bio = BIO_new(BIO_s_mem());
    certificate_bio = BIO_new(BIO_s_mem());
    if (!key_bio || !certificate_bio || !PEM_write_bio_PrivateKey(key_bio, key, NULL, NULL, 0, NULL, NULL)
        || !PEM_write_bio_X509(certificate_bio, certificate)) {
        fail(error, error_length, "PEM encoding");
        goto done;
    }
    if (!take_bio(key_bio, key_pem, key_length) || !take_bio(certificate_bio, certificate_pem, certificate_length)) {
        free(*key_pem);
        *key_pem = NULL;
        fail(error, error_length, "out of memory");
        goto done;
    }
    status = KC_OK;
done:
    BIO_free(key_bio);
    BIO_free(certificate_bio);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return status;
}

int kc_certificate_der(const char *certificate_pem, size_t certificate_length, const char *key_pem, size_t key_length,
                       unsigned char **der, size_t *der_length, char *error, size_t error_length) {
    kc_start();
    int status = KC_ERROR;
    *der = NULL;
    X509 *certificate = NULL;
    EVP_PKEY *key = NULL;
    BIO *bio = BIO_new_mem_buf(certificate_pem, (int)certificate_length);
    if (!bio || !(certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL))) {
        fail(error, error_length, "not a PEM certificate");
        goto done;
    }
    if (key_pem) {
        BIO *key_bio = BIO_new_mem_buf(key_pem, (int)key_length);
        key = key_bio ? PEM_read_bio_PrivateKey(key_bio, NULL, NULL, NULL) : NULL;
        BIO_free(key_bio);
        if (!key) { fail(error, error_length, "not a PEM private key"); goto done; }
        if (X509_check_private_key(certificate, key) != 1) {
            fail(error, error_length, "the private key does not match the certificate");
            goto done;
        }
    }
    int size = i2d_X509(certificate, NULL);
    if (size <= 0) { fail(error, error_length, "DER encoding"); goto done; }
    unsigned char *out = malloc((size_t)size);
    if (!out) { fail(error, error_length, "out of memory"); goto done; }
    unsigned char *cursor = out;
    i2d_X509(certificate, &cursor);
    *der = out;
    *der_length = (size_t)size;
    status = KC_OK;
done:
    BIO_free(bio);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return status;
}

int kc_der_common_name(const unsigned char *der, size_t der_length, char *name, size_t name_length) {
    kc_start();
    if (!name || name_length == 0) return KC_ERROR;
    name[0] = 0;
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)der_length);
    if (!certificate) { ERR_clear_error(); return KC_ERROR; }
    int status = KC_ERROR;
    X509_NAME *subject = X509_get_subject_name(certificate);
    int index = subject ? X509_NAME_get_index_by_NID(subject, NID_commonName, -1) : -1;
    if (index >= 0) {
        ASN1_STRING *value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index));
        unsigned char *utf8 = NULL;
        int length = value ? ASN1_STRING_to_UTF8(&utf8, value) : -1;
        if (length >= 0 && (size_t)length < name_length) {
            memcpy(name, utf8, (size_t)length);
            name[length] = 0;
            status = KC_OK;
        }
        OPENSSL_free(utf8);
    }
    X509_free(certificate);
    ERR_clear_error();
    return status;
}

void kc_sha256(const void *bytes, size_t length, unsigned char digest[32]) {
    kc_start();
    unsigned int size = 32;
    EVP_Digest(bytes, length, digest, &size, EVP_sha256(), NULL);
}

void kc_free(void *pointer) { free(pointer); }
