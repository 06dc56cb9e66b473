/* What the GLSL backends read of a module: for `coalesce il`
 * (src/core/il.c) its SPIR-V as text, through SPIRV-Tools' C API (the
 * static libSPIRV-Tools.a that shaderc links, kept private as it is), and
 * the work-group memory its Workgroup variables declare; for the launch,
 * whether it reads gl_NumWorkGroups and which bindings are uniform blocks. */
#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/glsl/glsl.h"

co_status co_spirv_text(const void *spirv, size_t size, char **out) {
    *out = NULL;
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_1);
    if (!ctx) return co_fail(CO_ERR_NOMEM, "SPIRV-Tools: cannot create a context");
    spv_text text = NULL;
    spv_diagnostic diag = NULL;
    const spv_result_t r = spvBinaryToText(
        ctx, spirv, size / 4,
        SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT, &text, &diag);
    co_status st = CO_OK;
    if (r != SPV_SUCCESS)
        st = co_fail(CO_ERR_DEVICE, "SPIRV-Tools: spvBinaryToText failed (%d): %s", (int)r,
                     diag && diag->error ? diag->error : "no diagnostic");
    else if (!(*out = malloc(text->length + 1)))
        st = co_fail(CO_ERR_NOMEM, "out of host memory");
    else {
        memcpy(*out, text->str, text->length);
        (*out)[text->length] = 0;
    }
    spvTextDestroy(text);
    spvDiagnosticDestroy(diag);
    spvContextDestroy(ctx);
    return st;
}

/* ---- what the launch needs ---- */

/* One walk of the module. Uniform variables are told from storage buffers
 * by their block: a Vulkan 1.1 module (SPIR-V 1.3) gives storage buffers a
 * class of their own, an OpenGL one (SPIR-V 1.0) makes them Uniform
 * variables whose block is a BufferBlock. The decorations come before the
 * types and variables they name. */
void co_spirv_launch_facts(const void *spirv, size_t size, co_spirv_facts *out) {
    enum { MAX_DECOR = 64 };
    const uint32_t *w = spirv;
    const size_t n = size / 4;
    uint32_t ids[MAX_DECOR], binding[MAX_DECOR], buffer_blocks[MAX_DECOR];
    uint32_t pointers[MAX_DECOR][2]; /* a Uniform pointer type: its id and pointee */
    size_t nd = 0, nbb = 0, np = 0;
    *out = (co_spirv_facts){0};
    for (size_t i = 5; i < n;) { /* after the 5-word header */
        const uint32_t len = w[i] >> 16, op = w[i] & 0xFFFF;
        if (!len || len > n - i) break;
        if (op == SpvOpDecorate && len == 4 && w[i + 2] == SpvDecorationBuiltIn &&
            w[i + 3] == SpvBuiltInNumWorkgroups)
            out->num_groups = true;
        if (op == SpvOpDecorate && len == 4 && w[i + 2] == SpvDecorationSpecId && w[i + 3] < 32)
            out->spec_ids |= 1u << w[i + 3];
        if (op == SpvOpDecorate && len == 4 && w[i + 2] == SpvDecorationBinding && nd < MAX_DECOR)
            ids[nd] = w[i + 1], binding[nd++] = w[i + 3];
        if (op == SpvOpDecorate && len == 3 && w[i + 2] == SpvDecorationBufferBlock &&
            nbb < MAX_DECOR)
            buffer_blocks[nbb++] = w[i + 1];
        if (op == SpvOpTypePointer && len == 4 && w[i + 2] == SpvStorageClassUniform &&
            np < MAX_DECOR)
            pointers[np][0] = w[i + 1], pointers[np++][1] = w[i + 3];
        if (op == SpvOpVariable && len >= 4 &&
            (w[i + 3] == SpvStorageClassUniform || w[i + 3] == SpvStorageClassStorageBuffer)) {
            bool buffer = w[i + 3] == SpvStorageClassStorageBuffer;
            for (size_t p = 0; p < np; p++)
                for (size_t b = 0; b < nbb && pointers[p][0] == w[i + 1]; b++)
                    buffer = buffer || pointers[p][1] == buffer_blocks[b];
            for (size_t k = 0; k < nd; k++)
                if (ids[k] == w[i + 2] && buffer && binding[k] < 64)
                    out->storage_mask |= 1ull << binding[k];
                else if (ids[k] == w[i + 2] && !buffer && binding[k] < CO_GLSL_MAX_BINDINGS)
                    out->uniform_mask |= 1u << binding[k];
        }
        i += len;
    }
}

/* ---- Workgroup variables' bytes ---- */

/* Per id: a type's size in bytes or a constant's value; `dynamic`: it
 * follows CO_LOCAL_BYTES (specialisation constant 3); `known`: evaluated. */
typedef struct spv_id {
    int64_t v;
    uint32_t at; /* a composite constant: its instruction's word index */
    bool known, dynamic;
} spv_id;

static int64_t spec_op(uint32_t op, int64_t a, int64_t b, bool *ok) {
    switch (op) {
    case SpvOpIAdd: return a + b;
    case SpvOpISub: return a - b;
    case SpvOpIMul: return a * b;
    case SpvOpUDiv:
    case SpvOpSDiv: return b ? a / b : (*ok = false, 0);
    case SpvOpUMod:
    case SpvOpSRem:
    case SpvOpSMod: return b ? a % b : (*ok = false, 0);
    case SpvOpShiftLeftLogical: return a << (b & 31);
    case SpvOpShiftRightLogical:
    case SpvOpShiftRightArithmetic: return a >> (b & 31);
    case SpvOpBitwiseOr: return a | b;
    case SpvOpBitwiseAnd: return a & b;
    case SpvOpBitwiseXor: return a ^ b;
    case SpvOpUConvert:
    case SpvOpSConvert:
    case SpvOpBitcast: return a;
    default: *ok = false; return 0;
    }
}

/* One instruction of the types-and-constants section into ids[]. */
static void define(const uint32_t *w, uint32_t len, uint32_t at, const uint32_t *spec_ids,
                   const uint32_t spec[4], spv_id *ids, uint32_t bound) {
    const uint32_t op = w[0] & 0xFFFF;
#define ID(i) (w[i] < bound ? &ids[w[i]] : NULL)
    spv_id *r = NULL, *a, *b;
    int64_t v = 0;
    bool ok = true, dyn = false;
    switch (op) {
    case SpvOpTypeBool: r = ID(1), v = 4; break;
    case SpvOpTypeInt:
    case SpvOpTypeFloat: r = ID(1), v = w[2] / 8; break;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
    case SpvOpTypeArray:
        r = ID(1), a = ID(2), b = op == SpvOpTypeArray ? ID(3) : NULL;
        ok = a && a->known && (op != SpvOpTypeArray || (b && b->known));
        if (ok) v = a->v * (op == SpvOpTypeArray ? b->v : (int64_t)w[3]);
        dyn = ok && (a->dynamic || (b && b->dynamic));
        break;
    case SpvOpTypeStruct: /* members packed: drivers may pad */
        r = ID(1);
        for (uint32_t i = 2; i < len && ok; i++) {
            ok = (a = ID(i)) && a->known;
            if (ok) v += a->v, dyn |= a->dynamic;
        }
        break;
    case SpvOpConstant:
    case SpvOpSpecConstant:
        r = ID(2), v = len > 3 ? w[3] : 0;
        if (op == SpvOpSpecConstant && w[2] < bound && spec_ids[w[2]] < 4) {
            v = spec[spec_ids[w[2]]];
            dyn = spec_ids[w[2]] == 3;
        }
        break;
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite:
        if ((r = ID(2))) r->at = at;
        ok = false; /* a composite has no value of its own */
        break;
    case SpvOpSpecConstantOp:
        r = ID(2), a = len > 4 ? ID(4) : NULL;
        if (w[3] == SpvOpCompositeExtract) { /* gl_WorkGroupSize.x */
            /* the composite's instruction: its constituents from word 3 */
            const uint32_t *c = a && a->at && len > 5 ? w - at + a->at : NULL;
            const uint32_t part = c && w[5] + 3 < (c[0] >> 16) ? c[3 + w[5]] : bound;
            b = part < bound ? &ids[part] : NULL;
            ok = b && b->known;
            if (ok) v = b->v, dyn = b->dynamic;
            break;
        }
        b = len > 5 ? ID(5) : NULL;
        ok = a && a->known && (!b || b->known);
        if (ok) v = spec_op(w[3], a->v, b ? b->v : 0, &ok), dyn = a->dynamic || (b && b->dynamic);
        break;
    default: return;
    }
#undef ID
    if (!r) return;
    r->known = ok;
    r->v = v;
    r->dynamic = dyn;
}

long co_spirv_shared_bytes(const void *spirv, size_t size, const uint32_t spec[4], long *dynamic) {
    const uint32_t *w = spirv;
    const size_t n = size / 4;
    *dynamic = 0;
    if (n < 5 || w[0] != SpvMagicNumber) return -1;
    const uint32_t bound = w[3];
    spv_id *ids = calloc(bound ? bound : 1, sizeof *ids);
    uint32_t *spec_ids = malloc((bound ? bound : 1) * sizeof *spec_ids);
    uint32_t *pointee = calloc(bound ? bound : 1, sizeof *pointee);
    long total = 0;
    if (!ids || !spec_ids || !pointee) total = -1;
    for (uint32_t i = 0; spec_ids && i < bound; i++) spec_ids[i] = UINT32_MAX;
    for (size_t i = 5; total >= 0 && i < n;) {
        const uint32_t len = w[i] >> 16, op = w[i] & 0xFFFF;
        if (!len || i + len > n) break;
        const uint32_t *in = &w[i];
        if (op == SpvOpDecorate && len == 4 && in[2] == SpvDecorationSpecId && in[1] < bound)
            spec_ids[in[1]] = in[3];
        else if (op == SpvOpTypePointer && len == 4 && in[1] < bound)
            pointee[in[1]] = in[3];
        else if (op == SpvOpVariable && len >= 4 && in[3] == SpvStorageClassWorkgroup) {
            const uint32_t t = in[1] < bound ? pointee[in[1]] : 0;
            const spv_id *type = t && t < bound ? &ids[t] : NULL;
            if (!type || !type->known)
                total = -1; /* a size this evaluator cannot follow */
            else if (type->dynamic)
                *dynamic += (long)type->v;
            else
                total += (long)type->v;
        } else if (op == SpvOpFunction)
            break; /* past the declarations */
        else
            define(in, len, (uint32_t)i, spec_ids, spec, ids, bound);
        i += len;
    }
    free(ids);
    free(spec_ids);
    free(pointee);
    return total;
}
