#include "engine/data/corpus_text.h"

// The assembler includes the file's bytes as they are: no generated source,
// no install path to find at run time. PLAB_CORPUS_FILE comes from CMake,
// which also makes this file depend on the text.
#ifndef PLAB_CORPUS_FILE
#error "PLAB_CORPUS_FILE names assets/corpus/shakespeare.txt"
#endif

asm(".pushsection .rodata\n"
    ".global plab_shakespeare_begin\n"
    ".hidden plab_shakespeare_begin\n"
    ".global plab_shakespeare_end\n"
    ".hidden plab_shakespeare_end\n"
    "plab_shakespeare_begin:\n"
    ".incbin \"" PLAB_CORPUS_FILE "\"\n"
    "plab_shakespeare_end:\n"
    ".popsection\n");

extern "C" {
__attribute__((visibility("hidden"))) extern const char plab_shakespeare_begin[];
__attribute__((visibility("hidden"))) extern const char plab_shakespeare_end[];
}

namespace plab {

std::string_view shakespeare_corpus() {
    return {plab_shakespeare_begin, static_cast<std::size_t>(plab_shakespeare_end - plab_shakespeare_begin)};
}

}  // namespace plab
