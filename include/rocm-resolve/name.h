/*
 * name.h - PEP 503 project-name normalisation and PEP 508 name validation.
 *
 * rr_name_normalize() lowercases and collapses runs of '-', '_' and '.' into
 * one '-': "Pytorch_Triton.ROCm" -> "pytorch-triton-rocm". The returned
 * string is owned by the caller.
 */
#ifndef RR_NAME_H
#define RR_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rr_strbuf;

char *rr_name_normalize(const char *name);
char *rr_name_normalize_n(const char *name, size_t len);
void rr_name_normalize_into(const char *name, size_t len, struct rr_strbuf *out);
/* PEP 508 name: ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$ (case-insensitive) */
bool rr_name_is_valid(const char *name, size_t len);
/* true when a and b normalise to the same name */
bool rr_name_eq(const char *a, const char *b);
/* a hash of the normalised name: equal for names rr_name_eq calls equal */
uint64_t rr_name_hash(const char *name);

#endif
