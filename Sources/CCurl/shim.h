// libcurl 7.88 (Debian 12, OpenSSL flavour). curl_easy_setopt, curl_easy_getinfo and
// curl_multi_setopt are variadic, which Swift cannot call: one typed wrapper per argument kind.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share this signature.
static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                       size_t (*value)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
/// CURL_GLOBAL_ALL is a macro expression Swift does not import.
static inline CURLcode ccurl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}
/// CURLMsg's result lives in a union Swift does not see through.
static inline CURLcode ccurl_message_result(const CURLMsg *message) {
    return message->data.result;
}
#endif
