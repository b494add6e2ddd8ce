# plab_set_warnings(target): the project's warning flags (DESIGN.md: -Wall -Wextra,
# errors in CI builds through PLAB_WERROR).
function(plab_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpedantic>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${PLAB_WERROR}>>:-Werror>)
endfunction()
