# plab_set_warnings(target): the project's warning flags (docs/DESIGN.md, "Build and tooling": -Wall -Wextra,
# errors in CI builds through PLAB_WERROR).
#
# GCC 12's -Wrestrict misfires on std::string concatenation once -O3 inlines
# it (GCC bug 105329, fixed in GCC 13): the Release build of ./lab package
# stopped on four such lines. It stays a warning there, not an error.
function(plab_set_warnings target)
  set(gcc12 $<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpedantic>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${PLAB_WERROR}>>:-Werror>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${PLAB_WERROR}>,${gcc12}>:-Wno-error=restrict>)
endfunction()
