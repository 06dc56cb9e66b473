/* The instruction mix of a SPIR-V module, counted in its assembly (the
 * text SPIRV-Tools writes, friendly names or numbers), with the meaning of
 * the PTX counts (co_il_mix):
 * - OpLoad / OpStore through a pointer of storage class StorageBuffer or
 *   PhysicalStorageBuffer: global, by the width of the value (a vector's
 *   components; any other type one); Workgroup: shared; Function and
 *   Private: local (a work-item's own arrays, which the driver may still
 *   keep in registers); push constants, inputs and uniforms not counted;
 * - fma: OpExtInst Fma, and each OpFAdd / OpFSub with an operand made by an
 *   OpFMul, neither decorated NoContraction (a multiply-add the driver may
 *   contract, as NVRTC's PTX does);
 * - barrier: OpControlBarrier;
 * - shuffle: each subgroup operation that moves values between lanes
 *   (OpGroupNonUniform shuffles, broadcasts, reductions and scans; not
 *   elect, votes and ballots);
 * - branch: OpBranchConditional and OpSwitch (SPIR-V's OpBranch closes
 *   every structured block: not a branch of the machine code).
 * Forward references to pointers (variable pointers through OpPhi) are not
 * followed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/il_spirv.h"

enum { CLASS_NONE, CLASS_GLOBAL, CLASS_SHARED, CLASS_LOCAL };

/* What the text says of one id; links are entry numbers + 1 (0: none). */
typedef struct spv_name {
    char *name; /* "%v4float", "%25" */
    int ptr_class;
    size_t type, pointee;
    unsigned width;
    bool fmul, no_contraction;
} spv_name;

/* The ids seen: entries in order, and a hash index of them. */
typedef struct names {
    spv_name *e;
    size_t n, cap;
    size_t *slot; /* entry number + 1, 0: free */
    size_t nslots;
    bool failed;
} names;

static uint64_t hash(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static size_t *slot_of(const names *t, const char *s, size_t n) {
    for (size_t i = hash(s, n) & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        const size_t k = t->slot[i];
        if (!k || (!strncmp(t->e[k - 1].name, s, n) && !t->e[k - 1].name[n])) return &t->slot[i];
    }
}

/* Room for one more entry: the entries and the index (kept half empty). */
static bool room(names *t) {
    if (t->n == t->cap) {
        const size_t cap = t->cap ? 2 * t->cap : 512;
        spv_name *e = realloc(t->e, cap * sizeof *e);
        if (!e) return false;
        t->e = e, t->cap = cap;
    }
    if ((t->n + 1) * 2 <= t->nslots) return true;
    const size_t nslots = t->nslots ? 2 * t->nslots : 1024;
    size_t *slot = calloc(nslots, sizeof *slot);
    if (!slot) return false;
    free(t->slot);
    t->slot = slot, t->nslots = nslots;
    for (size_t k = 0; k < t->n; k++) *slot_of(t, t->e[k].name, strlen(t->e[k].name)) = k + 1;
    return true;
}

/* The entry number + 1 of name s[0..n), added where `add` (0: absent). */
static size_t find(names *t, const char *s, size_t n, bool add) {
    size_t *k = t->nslots ? slot_of(t, s, n) : NULL;
    if ((k && *k) || !add) return k ? *k : 0;
    if (!room(t) || !(t->e[t->n].name = malloc(n + 1))) {
        t->failed = true;
        return 0;
    }
    spv_name *e = &t->e[t->n++];
    memcpy(e->name, s, n);
    e->name[n] = 0;
    e->ptr_class = 0, e->type = e->pointee = 0, e->width = 1;
    e->fmul = e->no_contraction = false;
    *slot_of(t, s, n) = t->n;
    return t->n;
}

/* The words of one line: up to 8, each [start, length). */
typedef struct words {
    const char *w[8];
    size_t len[8], n;
} words;

static void split(const char *line, size_t n, words *out) {
    out->n = 0;
    for (size_t i = 0; i < n && out->n < 8;) {
        while (i < n && (line[i] == ' ' || line[i] == '\t')) i++;
        if (i >= n || line[i] == ';') break;
        const size_t start = i;
        while (i < n && line[i] != ' ' && line[i] != '\t') i++;
        out->w[out->n] = line + start;
        out->len[out->n++] = i - start;
    }
}

static bool is(const words *w, size_t i, const char *s) {
    return i < w->n && w->len[i] == strlen(s) && !strncmp(w->w[i], s, w->len[i]);
}

static bool starts(const words *w, size_t i, const char *s) {
    return i < w->n && w->len[i] >= strlen(s) && !strncmp(w->w[i], s, strlen(s));
}

static int storage_class(const words *w, size_t i) {
    if (is(w, i, "StorageBuffer") || is(w, i, "PhysicalStorageBuffer")) return CLASS_GLOBAL;
    if (is(w, i, "Workgroup")) return CLASS_SHARED;
    if (is(w, i, "Function") || is(w, i, "Private")) return CLASS_LOCAL;
    return CLASS_NONE;
}

/* Subgroup operations that move values between lanes (see the head). */
static bool is_shuffle(const words *w, size_t i) {
    static const char *const not_moving[] = {"OpGroupNonUniformElect",
                                             "OpGroupNonUniformAll",
                                             "OpGroupNonUniformAny",
                                             "OpGroupNonUniformAllEqual",
                                             "OpGroupNonUniformBallot",
                                             "OpGroupNonUniformInverseBallot",
                                             "OpGroupNonUniformBallotBitExtract",
                                             "OpGroupNonUniformBallotBitCount",
                                             "OpGroupNonUniformBallotFindLSB",
                                             "OpGroupNonUniformBallotFindMSB"};
    if (!starts(w, i, "OpGroupNonUniform")) return false;
    for (size_t j = 0; j < sizeof not_moving / sizeof *not_moving; j++)
        if (is(w, i, not_moving[j])) return false;
    return true;
}

/* The entry number + 1 of word i where it is an id (0: not one). */
static size_t at(names *t, const words *w, size_t i, bool add) {
    return i < w->n && w->w[i][0] == '%' ? find(t, w->w[i], w->len[i], add) : 0;
}

static spv_name *entry(names *t, size_t k) { return k ? &t->e[k - 1] : NULL; }

/* One instruction: `%r = OpX ...` or `OpX ...`. */
static void count_line(names *t, const words *w, co_il_mix *m) {
    const bool result = w->n >= 3 && is(w, 1, "=");
    const size_t op = result ? 2 : 0; /* the opcode's word */
    const size_t rk = result ? at(t, w, 0, true) : 0;
    if (result && !rk) return;
    if (is(w, op, "OpTypeVector")) {
        entry(t, rk)->width = op + 2 < w->n ? (unsigned)strtoul(w->w[op + 2], NULL, 10) : 1;
    } else if (is(w, op, "OpTypePointer")) {
        const size_t pointee = at(t, w, op + 2, true);
        entry(t, rk)->ptr_class = storage_class(w, op + 1);
        entry(t, rk)->pointee = pointee;
    } else if (result && !starts(w, op, "OpType") && !is(w, op, "OpLabel") &&
               !is(w, op, "OpExtInstImport") && !is(w, op, "OpString") &&
               !is(w, op, "OpDecorationGroup")) {
        const size_t type = at(t, w, op + 1, true); /* the result type */
        entry(t, rk)->type = type;
    }
    const spv_name *r = entry(t, rk);
    if (is(w, op, "OpDecorate") && is(w, op + 2, "NoContraction")) {
        spv_name *x = entry(t, at(t, w, op + 1, true));
        if (x) x->no_contraction = true;
    } else if (is(w, op, "OpLoad") || is(w, op, "OpStore")) {
        const bool st = is(w, op, "OpStore");
        const spv_name *p = entry(t, at(t, w, st ? op + 1 : op + 2, false));
        const spv_name *pt = p ? entry(t, p->type) : NULL;
        const int cls = pt ? pt->ptr_class : CLASS_NONE;
        const spv_name *value = entry(t, st ? (pt ? pt->pointee : 0) : r->type);
        const unsigned width = value ? value->width : 1, wi = width >= 4 ? 2 : width >= 2 ? 1 : 0;
        if (cls == CLASS_GLOBAL)
            (st ? m->st_global : m->ld_global)[wi]++;
        else if (cls == CLASS_SHARED)
            st ? m->st_shared++ : m->ld_shared++;
        else if (cls == CLASS_LOCAL)
            st ? m->st_local++ : m->ld_local++;
    } else if (is(w, op, "OpFMul")) {
        entry(t, rk)->fmul = true;
    } else if (is(w, op, "OpFAdd") || is(w, op, "OpFSub")) {
        const spv_name *a = entry(t, at(t, w, op + 2, false));
        const spv_name *b = entry(t, at(t, w, op + 3, false));
        if (!r->no_contraction &&
            ((a && a->fmul && !a->no_contraction) || (b && b->fmul && !b->no_contraction)))
            m->fma++;
    } else if (is(w, op, "OpExtInst") && is(w, op + 3, "Fma")) {
        m->fma++;
    } else if (is(w, op, "OpControlBarrier")) {
        m->barrier++;
    } else if (is_shuffle(w, op)) {
        m->shuffle++;
    } else if (is(w, op, "OpBranchConditional") || is(w, op, "OpSwitch")) {
        m->branch++;
    }
}

co_status co_il_count_spirv(const char *text, co_il_mix *out) {
    names t = {0};
    for (const char *line = text; line && *line && !t.failed;) {
        const char *nl = strchr(line, '\n');
        const size_t n = nl ? (size_t)(nl - line) : strlen(line);
        words w;
        split(line, n, &w);
        if (w.n) count_line(&t, &w, out);
        line = nl ? nl + 1 : NULL;
    }
    for (size_t k = 0; k < t.n; k++) free(t.e[k].name);
    free(t.e);
    free(t.slot);
    return t.failed ? co_fail(CO_ERR_NOMEM, "out of host memory") : CO_OK;
}
