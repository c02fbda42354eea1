/* JSON strings that stay valid UTF-8 (io/json.h). */
#include "io/json.h"

#include <stdlib.h>
#include <string.h>

#include "dike/base.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : 0;
    if (s[0] >= 0xf8)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

cJSON *dike_json_str(const char *s)
{
    if (!s)
        return cJSON_CreateNull();
    size_t n = strlen(s);
    char *clean = dike_xmalloc(3 * n + 1), *o = clean;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t k = *p < 0x80 ? 1 : utf8_len(p);
        if (k) {
            memcpy(o, p, k);
            o += k;
            p += k;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = '\0';
    cJSON *v = cJSON_CreateString(clean);
    free(clean);
    return v;
}
