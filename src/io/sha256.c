/* SHA-256 of an input file, recorded in the output so a result names exactly the trace it came from. */
#include "dike/workload.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

int dike_sha256_file(const char *path, char out[65], dike_err *e)
{
    unsigned char buf[1 << 16], md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int rc = 0;
    EVP_MD_CTX *ctx = NULL;
    FILE *f = fopen(path, "rb");
    out[0] = '\0';
    if (!f)
        return dike_err_set(e, DIKE_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (!(ctx = EVP_MD_CTX_new()) || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        rc = dike_err_set(e, DIKE_EINTERNAL, "%s: OpenSSL cannot start a SHA-256 digest", path);
        goto out;
    }
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (!EVP_DigestUpdate(ctx, buf, got)) {
            rc = dike_err_set(e, DIKE_EINTERNAL, "%s: OpenSSL SHA-256 update failed", path);
            goto out;
        }
    }
    if (ferror(f)) {
        rc = dike_err_set(e, DIKE_EIO, "%s: cannot read: %s", path, strerror(errno));
        goto out;
    }
    if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32) {
        rc = dike_err_set(e, DIKE_EINTERNAL, "%s: OpenSSL SHA-256 final failed", path);
        goto out;
    }
    for (unsigned int i = 0; i < mdlen; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
out:
    EVP_MD_CTX_free(ctx);
    fclose(f);
    return rc;
}
