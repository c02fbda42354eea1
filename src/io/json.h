/* JSON strings for cJSON documents (internal): the one JSON library of the project is cJSON
 * (campaign manifests and run records, dike-emu export's summary). */
#ifndef DIKE_IO_JSON_H
#define DIKE_IO_JSON_H

#include <cjson/cJSON.h>

/** A JSON string value of @p s. cJSON escapes quotes and control characters but copies other
 *  bytes as they are; bytes that are not UTF-8 (a name in another encoding) become U+FFFD here so
 *  the document stays valid JSON. NULL becomes null. */
cJSON *dike_json_str(const char *s);

#endif
