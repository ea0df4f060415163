// Sixteen bytes of text classified at once, for the snippet scanner in XKCDStore.
//
// Swift's SIMD types compile byte comparisons into loops over lanes on this toolchain; these
// inline functions give it SSE2, which every x86-64 processor has, with a portable loop
// elsewhere. They are `static inline` so that the compiler inlines them into the Swift caller.

#ifndef XKCD_WORD_SCAN_H
#define XKCD_WORD_SCAN_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// The first bytes a query word of the snippet may start with: lower-case letters, which
/// match either case, and other bytes, which match as they are. At most eight in all, each
/// repeated over the 16 bytes of a block, as the comparison takes it.
typedef struct {
    uint8_t letters[8][16];
    uint8_t others[8][16];
    int32_t letterCount;
    int32_t otherCount;
} XKCDFirstBytes;

/// Bit `i` (of the low 16) for byte `i` of the block.
typedef struct {
    /// Letters, digits and bytes from 0x80: the bytes words are made of.
    uint32_t words;
    /// Bytes that may start a query word (see `XKCDFirstBytes`).
    uint32_t firsts;
} XKCDBlockMasks;

/// Classifies the 16 bytes at `bytes`, all of which must be readable, a byte at a time: for
/// processors without SSE2, and as the reference the SSE2 version is tested against.
static inline XKCDBlockMasks xkcd_classify16_portable(const uint8_t *bytes, const XKCDFirstBytes *first) {
    XKCDBlockMasks masks;
    masks.words = 0;
    masks.firsts = 0;
    for (int32_t byteIndex = 0; byteIndex < 16; byteIndex++) {
        const uint8_t byte = bytes[byteIndex];
        const uint8_t folded = byte | 0x20;
        if (byte >= 0x80 || (uint8_t)(byte - '0') < 10 || (uint8_t)(folded - 'a') < 26) masks.words |= 1u << byteIndex;
        int32_t matches = 0;
        for (int32_t index = 0; index < first->letterCount; index++) matches |= folded == first->letters[index][0];
        for (int32_t index = 0; index < first->otherCount; index++) matches |= byte == first->others[index][0];
        if (matches) masks.firsts |= 1u << byteIndex;
    }
    return masks;
}

/// Classifies the 16 bytes at `bytes`, all of which must be readable.
static inline XKCDBlockMasks xkcd_classify16(const uint8_t *bytes, const XKCDFirstBytes *first) {
#if defined(__SSE2__)
    XKCDBlockMasks masks;
    const __m128i block = _mm_loadu_si128((const __m128i *)bytes);
    const __m128i bias = _mm_set1_epi8((char)0x80);
    // x - low, unsigned, below n: signed after flipping the top bits.
    const __m128i digits = _mm_cmplt_epi8(
        _mm_xor_si128(_mm_sub_epi8(block, _mm_set1_epi8('0')), bias), _mm_set1_epi8((char)(10 - 128)));
    const __m128i folded = _mm_or_si128(block, _mm_set1_epi8(0x20));
    const __m128i letters = _mm_cmplt_epi8(
        _mm_xor_si128(_mm_sub_epi8(folded, _mm_set1_epi8('a')), bias), _mm_set1_epi8((char)(26 - 128)));
    // A byte from 0x80 has its top bit set already, which is all movemask reads.
    masks.words = (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digits, letters), block));
    __m128i equal = _mm_setzero_si128();
    // Falling through from the count down: a jump instead of a loop's tests.
#define XKCD_COMPARE(value, bytes, index) \
    equal = _mm_or_si128(equal, _mm_cmpeq_epi8(value, _mm_loadu_si128((const __m128i *)first->bytes[index])))
#define XKCD_COMPARE_ALL(value, bytes, count) \
    switch (count) { \
    case 8: XKCD_COMPARE(value, bytes, 7); /* fall through */ \
    case 7: XKCD_COMPARE(value, bytes, 6); /* fall through */ \
    case 6: XKCD_COMPARE(value, bytes, 5); /* fall through */ \
    case 5: XKCD_COMPARE(value, bytes, 4); /* fall through */ \
    case 4: XKCD_COMPARE(value, bytes, 3); /* fall through */ \
    case 3: XKCD_COMPARE(value, bytes, 2); /* fall through */ \
    case 2: XKCD_COMPARE(value, bytes, 1); /* fall through */ \
    case 1: XKCD_COMPARE(value, bytes, 0); /* fall through */ \
    default: break; \
    }
    XKCD_COMPARE_ALL(folded, letters, first->letterCount)
    XKCD_COMPARE_ALL(block, others, first->otherCount)
#undef XKCD_COMPARE_ALL
#undef XKCD_COMPARE
    masks.firsts = (uint32_t)_mm_movemask_epi8(equal);
    return masks;
#else
    return xkcd_classify16_portable(bytes, first);
#endif
}

/// `xkcd_classify16` of the last `count` (< 16) bytes of a text, as if zeros (no word bytes,
/// no first bytes: no pattern starts with zero) followed them.
static inline XKCDBlockMasks xkcd_classify_tail(const uint8_t *bytes, int32_t count, const XKCDFirstBytes *first) {
    uint8_t padded[16] = {0};
    memcpy(padded, bytes, (size_t)count);
    XKCDBlockMasks masks = xkcd_classify16(padded, first);
    const uint32_t inside = (1u << count) - 1;
    masks.words &= inside;
    masks.firsts &= inside;
    return masks;
}

/// The set bits of the low 16 of `mask`: the baseline x86-64 has no population count
/// instruction, and a table costs less than the shifts and masks that stand in for it.
static inline int32_t xkcd_count16(uint32_t mask) {
    static const uint8_t counts[256] = {
#define XKCD_COUNT2(n) n, n + 1, n + 1, n + 2
#define XKCD_COUNT4(n) XKCD_COUNT2(n), XKCD_COUNT2(n + 1), XKCD_COUNT2(n + 1), XKCD_COUNT2(n + 2)
#define XKCD_COUNT6(n) XKCD_COUNT4(n), XKCD_COUNT4(n + 1), XKCD_COUNT4(n + 1), XKCD_COUNT4(n + 2)
        XKCD_COUNT6(0), XKCD_COUNT6(1), XKCD_COUNT6(1), XKCD_COUNT6(2)
#undef XKCD_COUNT6
#undef XKCD_COUNT4
#undef XKCD_COUNT2
    };
    return counts[mask & 0xFF] + counts[(mask >> 8) & 0xFF];
}

#endif
