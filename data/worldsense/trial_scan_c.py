"""The C source of the trials scanner (:mod:`benchlab.data.worldsense.trial_scan`), kept apart so that module stays
readable: a strict JSON-lines validator that keeps only the fields scoring reads.

Why strict: it must accept nothing arrow's reader (the path it replaces) declines, and give the same values where
it accepts. So it validates every line completely (the grammar of RFC 8259, UTF-8 as Python decodes it, escapes,
surrogate pairs) and declines, rather than interprets, whatever is unusual: an escape inside a field scoring
reads, an escaped or repeated field name, a number that is not a plain integer where one is read, NaN, more than
one object on a line, nesting deeper than 64. A declined file goes back to arrow and the validating reader, which
accept it or name the file and line, as before.
"""

SOURCE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && !defined(BENCHLAB_PLAIN)
#include <emmintrin.h>
#endif

#define MAX_DEPTH 64

typedef struct {           /* distinct strings in order of first appearance, found by an open-addressing hash */
    char *blob; int64_t used, room;
    int64_t *start; int32_t count, cap;   /* start[i]..start[i+1] in blob */
    int32_t *slot; int32_t nslot;         /* index + 1, 0 = empty */
} dict;

typedef struct { void *p; int64_t n, cap; int size; } vec;

typedef struct {
    dict names[4];                        /* tuple_ID, problemname, gold, option values */
    vec key, psize, tuple, problem, gold, opt_end, opt_code;
    int gold_kind;                        /* 0 unknown, 1 goldresp_obfusc, 2 goldresp */
    int64_t rows, line, failed_line;
    int failed;
} scanner;

static int vec_push(vec *v, const void *item) {
    if (v->n == v->cap) {
        int64_t cap = v->cap ? v->cap * 2 : 4096;
        void *p = realloc(v->p, (size_t)(cap * v->size));
        if (!p) return 0;
        v->p = p; v->cap = cap;
    }
    memcpy((char *)v->p + v->n * v->size, item, (size_t)v->size);
    v->n++;
    return 1;
}

static uint64_t hash_bytes(const char *s, int64_t n) {
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ull; }
    return h;
}

static int dict_grow(dict *d) {
    int32_t nslot = d->nslot ? d->nslot * 2 : 256;
    int32_t *slot = calloc((size_t)nslot, sizeof(int32_t));
    if (!slot) return 0;
    for (int32_t i = 0; i < d->count; i++) {
        uint64_t h = hash_bytes(d->blob + d->start[i], d->start[i + 1] - d->start[i]);
        int32_t at = (int32_t)(h & (uint64_t)(nslot - 1));
        while (slot[at]) at = (at + 1) & (nslot - 1);
        slot[at] = i + 1;
    }
    free(d->slot); d->slot = slot; d->nslot = nslot;
    return 1;
}

/* The code of s[0:n] (added when new); -1 when out of memory. */
static int32_t dict_code(dict *d, const char *s, int64_t n) {
    if (!d->start) {
        d->start = malloc(sizeof(int64_t) * 64); if (!d->start) return -1;
        d->cap = 63; d->start[0] = 0;
    }
    if ((int64_t)(d->count + 1) * 2 > d->nslot && !dict_grow(d)) return -1;
    uint64_t h = hash_bytes(s, n);
    int32_t at = (int32_t)(h & (uint64_t)(d->nslot - 1));
    while (d->slot[at]) {
        int32_t i = d->slot[at] - 1;
        if (d->start[i + 1] - d->start[i] == n && memcmp(d->blob + d->start[i], s, (size_t)n) == 0) return i;
        at = (at + 1) & (d->nslot - 1);
    }
    if (d->used + n > d->room) {
        int64_t room = (d->room ? d->room * 2 : 4096) + n;
        char *blob = realloc(d->blob, (size_t)room); if (!blob) return -1;
        d->blob = blob; d->room = room;
    }
    if (d->count == d->cap) {
        int64_t *start = realloc(d->start, sizeof(int64_t) * (size_t)(d->cap * 2 + 1)); if (!start) return -1;
        d->start = start; d->cap *= 2;
    }
    memcpy(d->blob + d->used, s, (size_t)n);
    d->used += n;
    d->start[d->count + 1] = d->used;
    d->slot[at] = d->count + 1;
    return d->count++;
}

static inline const char *skip_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    return p;
}

static int hex4(const char *p, const char *e, unsigned *v) {
    if (e - p < 4) return 0;
    unsigned x = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        x <<= 4;
        if (c >= '0' && c <= '9') x |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') x |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') x |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *v = x;
    return 1;
}

static inline int cont(const char *p, int k) { return ((unsigned char)p[k] & 0xC0) == 0x80; }

/* After an opening quote: the byte after the closing quote, or NULL; *escaped is set when a backslash was seen.
   Eight bytes at a time while none is a quote, a backslash, a control character or beyond ASCII. */
static const char *scan_string(const char *p, const char *e, int *escaped) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    for (;;) {
#if defined(__SSE2__) && !defined(BENCHLAB_PLAIN)
        /* sixteen bytes at a time: signed compare flags bytes < 0x20 and >= 0x80 at once */
        const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
        while (e - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                                       _mm_cmplt_epi8(v, space));
            int mask = _mm_movemask_epi8(hit);
            if (mask) { p += __builtin_ctz((unsigned)mask); break; }
            p += 16;
        }
#endif
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
            uint64_t stop = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w;
            if (stop & highs) break;
            p += 8;
        }
        if (p >= e) return NULL;
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c < 0x20) return NULL;
        if (c == '\\') {
            *escaped = 1;
            if (e - p < 2) return NULL;
            char k = p[1];
            if (k == '"' || k == '\\' || k == '/' || k == 'b' || k == 'f' || k == 'n' || k == 'r' || k == 't') {
                p += 2;
                continue;
            }
            unsigned v, w2;
            if (k != 'u' || !hex4(p + 2, e, &v)) return NULL;
            p += 6;
            if (v >= 0xDC00 && v <= 0xDFFF) return NULL;
            if (v >= 0xD800 && v <= 0xDBFF) {
                if (e - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, e, &w2) || w2 < 0xDC00 || w2 > 0xDFFF)
                    return NULL;
                p += 6;
            }
            continue;
        }
        if (c < 0x80) { p++; continue; }
        /* UTF-8, as strict as Python's decoder: no overlong forms, no surrogates, nothing beyond U+10FFFF */
        int64_t left = e - p;
        unsigned char d = left > 1 ? (unsigned char)p[1] : 0;
        if (c >= 0xC2 && c <= 0xDF) {
            if (left < 2 || !cont(p, 1)) return NULL;
            p += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (left < 3 || !cont(p, 1) || !cont(p, 2)) return NULL;
            if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F)) return NULL;
            p += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (left < 4 || !cont(p, 1) || !cont(p, 2) || !cont(p, 3)) return NULL;
            if ((c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F)) return NULL;
            p += 4;
        } else {
            return NULL;
        }
    }
}

static const char *skip_number(const char *p, const char *e) {
    if (p < e && *p == '-') p++;
    if (p >= e) return NULL;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') { while (p < e && *p >= '0' && *p <= '9') p++; }
    else return NULL;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || *p < '0' || *p > '9') return NULL;
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (p >= e || *p < '0' || *p > '9') return NULL;
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    return p;
}

static const char *skip_value(const char *p, const char *e, int depth) {
    if (p >= e || depth > MAX_DEPTH) return NULL;
    int escaped = 0;
    switch (*p) {
    case '"': return scan_string(p + 1, e, &escaped);
    case '{':
        p = skip_ws(p + 1, e);
        if (p < e && *p == '}') return p + 1;
        for (;;) {
            if (p >= e || *p != '"' || !(p = scan_string(p + 1, e, &escaped))) return NULL;
            p = skip_ws(p, e);
            if (p >= e || *p != ':') return NULL;
            p = skip_value(skip_ws(p + 1, e), e, depth + 1);
            if (!p) return NULL;
            p = skip_ws(p, e);
            if (p < e && *p == '}') return p + 1;
            if (p >= e || *p != ',') return NULL;
            p = skip_ws(p + 1, e);
        }
    case '[':
        p = skip_ws(p + 1, e);
        if (p < e && *p == ']') return p + 1;
        for (;;) {
            p = skip_value(p, e, depth + 1);
            if (!p) return NULL;
            p = skip_ws(p, e);
            if (p < e && *p == ']') return p + 1;
            if (p >= e || *p != ',') return NULL;
            p = skip_ws(p + 1, e);
        }
    case 't': return (e - p >= 4 && memcmp(p, "true", 4) == 0) ? p + 4 : NULL;
    case 'f': return (e - p >= 5 && memcmp(p, "false", 5) == 0) ? p + 5 : NULL;
    case 'n': return (e - p >= 4 && memcmp(p, "null", 4) == 0) ? p + 4 : NULL;
    default: return skip_number(p, e);
    }
}

/* A plain JSON integer within int64 (no fraction, no exponent; -2**63 declined too). */
static const char *read_int(const char *p, const char *e, int64_t *out) {
    int neg = 0;
    if (p < e && *p == '-') { neg = 1; p++; }
    if (p >= e || *p < '0' || *p > '9') return NULL;
    if (*p == '0' && p + 1 < e && p[1] >= '0' && p[1] <= '9') return NULL;
    uint64_t v = 0;
    while (p < e && *p >= '0' && *p <= '9') {
        uint64_t digit = (uint64_t)(*p - '0');
        if (v > (9223372036854775807ull - digit) / 10) return NULL;
        v = v * 10 + digit;
        p++;
    }
    if (p < e && (*p == '.' || *p == 'e' || *p == 'E')) return NULL;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return p;
}

/* A string without escapes, coded in `d`. */
static const char *read_name(const char *p, const char *e, dict *d, int32_t *code) {
    if (p >= e || *p != '"') return NULL;
    int escaped = 0;
    const char *end = scan_string(p + 1, e, &escaped);
    if (!end || escaped) return NULL;
    *code = dict_code(d, p + 1, end - 1 - (p + 1));
    return *code < 0 ? NULL : end;
}

enum { F_KEY = 1, F_TUPLE = 2, F_PROBLEM = 4, F_SIZE = 8, F_OPTIONS = 16, F_OBF = 32, F_GOLD = 64 };

static int field_of(const char *s, int64_t n) {
    switch (n) {
    case 3: return memcmp(s, "Key", 3) == 0 ? F_KEY : 0;
    case 8: return memcmp(s, "tuple_ID", 8) == 0 ? F_TUPLE : (memcmp(s, "goldresp", 8) == 0 ? F_GOLD : 0);
    case 11: return memcmp(s, "problemname", 11) == 0 ? F_PROBLEM : (memcmp(s, "problemsize", 11) == 0 ? F_SIZE : 0);
    case 12: return memcmp(s, "expectedresp", 12) == 0 ? F_OPTIONS : 0;
    case 15: return memcmp(s, "goldresp_obfusc", 15) == 0 ? F_OBF : 0;
    default: return 0;
    }
}

/* One object (p at its '{'); the byte after it, or NULL. */
static const char *scan_object(scanner *s, const char *p, const char *e) {
    int seen = 0, escaped;
    int64_t key = 0, psize = 0;
    int32_t tuple = 0, problem = 0, gold = 0, code;
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}') return NULL;  /* no fields: declined (arrow gives nulls, scoring declines) */
    for (;;) {
        if (p >= e || *p != '"') return NULL;
        escaped = 0;
        const char *name_end = scan_string(p + 1, e, &escaped);
        if (!name_end || escaped) return NULL;
        int64_t n = name_end - 1 - (p + 1);
        int f = field_of(p + 1, n);
        p = skip_ws(name_end, e);
        if (p >= e || *p != ':') return NULL;
        p = skip_ws(p + 1, e);
        if (f & seen) return NULL;
        seen |= f;
        switch (f) {
        case F_KEY: p = read_int(p, e, &key); break;
        case F_SIZE: p = read_int(p, e, &psize); break;
        case F_TUPLE: p = read_name(p, e, &s->names[0], &tuple); break;
        case F_PROBLEM: p = read_name(p, e, &s->names[1], &problem); break;
        case F_OBF: case F_GOLD: p = read_name(p, e, &s->names[2], &gold); break;
        case F_OPTIONS:
            if (p >= e || *p != '[') return NULL;
            p = skip_ws(p + 1, e);
            for (;;) {
                p = read_name(p, e, &s->names[3], &code);
                if (!p || !vec_push(&s->opt_code, &code)) return NULL;
                p = skip_ws(p, e);
                if (p < e && *p == ']') { p++; break; }
                if (p >= e || *p != ',') return NULL;
                p = skip_ws(p + 1, e);
            }
            break;
        default: p = skip_value(p, e, 1);
        }
        if (!p) return NULL;
        p = skip_ws(p, e);
        if (p < e && *p == '}') { p++; break; }
        if (p >= e || *p != ',') return NULL;
        p = skip_ws(p + 1, e);
    }
    int kind = (seen & F_OBF) ? 1 : 2;
    const int needed = F_KEY | F_TUPLE | F_PROBLEM | F_SIZE | F_OPTIONS;
    if ((seen & needed) != needed) return NULL;
    if (((seen & F_OBF) != 0) == ((seen & F_GOLD) != 0)) return NULL;  /* exactly one of the two gold fields */
    if (s->gold_kind && s->gold_kind != kind) return NULL;
    s->gold_kind = kind;
    int64_t end = s->opt_code.n;
    if (!vec_push(&s->key, &key) || !vec_push(&s->psize, &psize) || !vec_push(&s->tuple, &tuple)
        || !vec_push(&s->problem, &problem) || !vec_push(&s->gold, &gold) || !vec_push(&s->opt_end, &end))
        return NULL;
    s->rows++;
    return p;
}

scanner *ws_new(void) {
    scanner *s = calloc(1, sizeof(scanner));
    if (!s) return NULL;
    s->key.size = s->psize.size = s->opt_end.size = 8;
    s->tuple.size = s->problem.size = s->gold.size = s->opt_code.size = 4;
    return s;
}

void ws_free(scanner *s) {
    if (!s) return;
    for (int i = 0; i < 4; i++) { free(s->names[i].blob); free(s->names[i].start); free(s->names[i].slot); }
    vec *v[] = {&s->key, &s->psize, &s->tuple, &s->problem, &s->gold, &s->opt_end, &s->opt_code};
    for (int i = 0; i < 7; i++) free(v[i]->p);
    free(s);
}

/* Whole lines data[0:n] (the last may lack its newline). 1: all accepted; 0: declined (the scanner stays
   declined; ws_failed_line says where). */
int ws_feed(scanner *s, const char *data, int64_t n) {
    if (s->failed) return 0;
    const char *p = data, *e = data + n;
    while (p < e) {
        s->line++;
        const char *q = skip_ws(p, e);
        if (q < e && *q == '{') {
            q = scan_object(s, q, e);
            if (q) q = skip_ws(q, e);
        } else if (q < e && *q != '\n') {
            q = NULL;
        }
        if (!q || (q < e && *q != '\n')) { s->failed = 1; s->failed_line = s->line; return 0; }
        p = q < e ? q + 1 : q;
    }
    return 1;
}

int64_t ws_failed_line(scanner *s) { return s->failed_line; }
int64_t ws_rows(scanner *s) { return s->rows; }
int64_t ws_options(scanner *s) { return s->opt_code.n; }
int ws_gold_kind(scanner *s) { return s->gold_kind; }
int32_t ws_names(scanner *s, int which) { return s->names[which].count; }
int64_t ws_names_bytes(scanner *s, int which) { return s->names[which].used; }

/* Copy the columns out (buffers sized by ws_rows / ws_options). */
void ws_columns(scanner *s, int64_t *key, int64_t *psize, int32_t *tuple, int32_t *problem, int32_t *gold,
                int64_t *opt_end, int32_t *opt_code) {
    size_t r = (size_t)s->rows;
    if (r) {
        memcpy(key, s->key.p, r * 8); memcpy(psize, s->psize.p, r * 8); memcpy(tuple, s->tuple.p, r * 4);
        memcpy(problem, s->problem.p, r * 4); memcpy(gold, s->gold.p, r * 4); memcpy(opt_end, s->opt_end.p, r * 8);
    }
    if (s->opt_code.n) memcpy(opt_code, s->opt_code.p, (size_t)s->opt_code.n * 4);
}

/* Copy one name list out, the names joined by NUL bytes (they hold none: no escapes, no control characters);
   ws_names_bytes + ws_names - 1 bytes. */
void ws_name_text(scanner *s, int which, char *out) {
    dict *d = &s->names[which];
    for (int32_t i = 0; i < d->count; i++) {
        int64_t n = d->start[i + 1] - d->start[i];
        memcpy(out, d->blob + d->start[i], (size_t)n);
        out += n;
        if (i + 1 < d->count) *out++ = 0;
    }
}

/* The published results form {"Key":<int>,"resp":"<answer>"}, one per line, accepted exactly as
   compact.py's numpy reader accepts it: keys[i] and codes[i] (answers coded in names[0] by first appearance) for
   each of the `lines` lines; the number of lines, or -1 when `raw` is not in that form. */
int64_t ws_compact(scanner *s, const char *raw, int64_t n, int64_t lines, int64_t *keys, int32_t *codes) {
    const char *p = raw, *e = raw + n;
    int64_t row = 0;
    if (n == 0 || raw[n - 1] != '\n') return -1;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl || row >= lines) return -1;
        const char *c = memchr(p, ',', (size_t)(nl - p));
        if (!c || c == p || memchr(c + 1, ',', (size_t)(nl - c - 1))) return -1;  /* exactly one comma */
        const char *key = p + 7, *resp = c + 9, *resp_end = nl - 2;
        if (resp_end < resp || c <= key) return -1;
        if (memcmp(p, "{\"Key\":", 7) || memcmp(c, ",\"resp\":\"", 9) || resp_end[0] != '"' || resp_end[1] != '}')
            return -1;
        int neg = *key == '-';
        int64_t digits = c - key - neg;
        if (digits < 1 || digits > 19) return -1;
        uint64_t v = 0;
        for (const char *d = key + neg; d < c; d++) {
            if (*d < '0' || *d > '9') return -1;
            v = v * 10 + (uint64_t)(*d - '0');
        }
        if (v > (neg ? 9223372036854775808ull : 9223372036854775807ull)) return -1;
        keys[row] = neg ? (int64_t)(0 - v) : (int64_t)v;
        if (resp_end - resp > 32) return -1;
        for (const char *a = resp; a < resp_end; a++)
            if (*a == '"' || *a == '\\' || (unsigned char)*a < 0x20) return -1;
        int32_t code = dict_code(&s->names[0], resp, resp_end - resp);
        if (code < 0) return -1;
        codes[row++] = code;
        p = nl + 1;
    }
    return row;
}
"""
