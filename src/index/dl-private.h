/*
 * dl-private.h - libcurl and libarchive, loaded with dlopen() on first use.
 *
 *   if (rr_curl_load(err) != RR_OK)
 *           return err->code;             // RR_E_ENV, names the library
 *   CURL *e = rr_curl.easy_init();
 *   rr_curl.easy_setopt(e, CURLOPT_URL, url);
 *
 *   if (rr_archive_load(err) != RR_OK) ...
 *   struct archive *a = rr_archive.read_new();
 *
 * Why: linking them costs every run of the tool ~10 ms and ~8 MB of mapped
 * dependencies (gnutls, krb5, ldap, ssh2, libxml2, ICU, ...) although the
 * pre-commit path (check/inspect/plan --no-index) never talks to an index.
 * The libraries stay package dependencies; only the binding is deferred.
 * Only fetch.c uses the curl table and only dist.c the archive table.
 *
 * Note: curl.h turns curl_easy_setopt & co. into type-checking macros under
 * gcc; the table's members are the plain variadic functions, so call those.
 * Loading happens once per process (pthread_once); a failure is remembered
 * and reported again on every later call.
 */
#ifndef RR_INDEX_DL_PRIVATE_H
#define RR_INDEX_DL_PRIVATE_H

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>

#include "index/index-private.h"

/* the sonames we bind to: the ABI the headers at build time describe */
#define RR_LIBCURL_SONAME "libcurl.so.4"
#define RR_LIBARCHIVE_SONAME "libarchive.so.13"
/* what to install when they are missing: the wheel does not bundle them (their
 * dependency closure is ~39 libraries, ~49 MiB, TLS and Kerberos included, that
 * would never get the distribution's security updates); Ubuntu 24.04's t64
 * packages provide these names */
#define RR_LIBCURL_PACKAGES "libcurl4 (Debian, Ubuntu: apt-get install libcurl4) or libcurl (Fedora, RHEL)"
#define RR_LIBARCHIVE_PACKAGES                                                                     \
	"libarchive13 (Debian, Ubuntu: apt-get install libarchive13) or libarchive (Fedora, RHEL)"

#define RR_CURL_SYMBOLS(X)                                                                         \
	X(global_init)                                                                             \
	X(easy_init)                                                                               \
	X(easy_cleanup)                                                                            \
	X(easy_setopt)                                                                             \
	X(easy_getinfo)                                                                            \
	X(easy_strerror)                                                                           \
	X(free)                                                                                    \
	X(multi_init)                                                                              \
	X(multi_cleanup)                                                                           \
	X(multi_setopt)                                                                            \
	X(multi_add_handle)                                                                        \
	X(multi_remove_handle)                                                                     \
	X(multi_perform)                                                                           \
	X(multi_poll)                                                                              \
	X(multi_wakeup)                                                                            \
	X(multi_info_read)                                                                         \
	X(share_init)                                                                              \
	X(share_cleanup)                                                                           \
	X(share_setopt)                                                                            \
	X(slist_append)                                                                            \
	X(slist_free_all)                                                                          \
	X(url)                                                                                     \
	X(url_cleanup)                                                                             \
	X(url_get)                                                                                 \
	X(url_set)

#define RR_ARCHIVE_SYMBOLS(X)                                                                      \
	X(read_new)                                                                                \
	X(read_support_filter_all)                                                                 \
	X(read_support_format_tar)                                                                 \
	X(read_support_format_zip)                                                                 \
	X(read_open_memory)                                                                        \
	X(read_open_fd)                                                                            \
	X(read_support_format_raw)                                                                 \
	X(read_next_header)                                                                        \
	X(read_data)                                                                               \
	X(read_free)                                                                               \
	X(error_string)                                                                            \
	X(entry_pathname)                                                                          \
	X(entry_size)                                                                              \
	X(entry_size_is_set)

/* each member has exactly the type of the library function it stands for */
#define RR_DL_CURL_MEMBER(n) __typeof__(curl_##n) *n;
struct rr_curl_syms {
	RR_CURL_SYMBOLS(RR_DL_CURL_MEMBER)
};
#undef RR_DL_CURL_MEMBER

#define RR_DL_ARCHIVE_MEMBER(n) __typeof__(archive_##n) *n;
struct rr_archive_syms {
	RR_ARCHIVE_SYMBOLS(RR_DL_ARCHIVE_MEMBER)
};
#undef RR_DL_ARCHIVE_MEMBER

/* filled by a successful rr_*_load(); all NULL before */
extern struct rr_curl_syms rr_curl;
extern struct rr_archive_syms rr_archive;

#endif
