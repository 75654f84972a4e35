# `mailwave dict build` twice on the same input must give byte-identical files, and
# `mailwave dict info` must read them; a truncated copy must be refused with exit status 1.
# A <code>.trigrams beside a list is read (and changes the file); a malformed one fails the
# build naming the file and the line. A <code>.variant makes <code> a variant of the language
# it names (dict info says so); a malformed one, or one of a language without a list, fails.
# Run by ctest: cmake -DMAILWAVE=... -DLISTS=... -DWORK=... -P dict_cli_test.cmake

# dict build of INPUT into OUT must exit with RC and say something matching ERR on stderr.
function(expect_dict_build input out rc_want err_want what)
  execute_process(COMMAND ${MAILWAVE} dict build --input ${input} --out ${out}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL rc_want OR NOT err MATCHES "${err_want}")
    message(FATAL_ERROR "${what}: ${rc} ${err}")
  endif()
endfunction()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(MAKE_DIRECTORY ${WORK}/tri)
file(COPY ${LISTS}/ DESTINATION ${WORK}/tri)
file(WRITE ${WORK}/tri/en.trigrams "the 30000000\nand 20000000\n")
expect_dict_build(${WORK}/tri ${WORK}/tri.dict 0 "read en.trigrams: 2 trigrams"
                  "dict build with en.trigrams")
file(WRITE ${WORK}/tri/en.trigrams "the 30000000\nand\n")
expect_dict_build(${WORK}/tri ${WORK}/bad.dict 1 "en.trigrams: line 2"
                  "a malformed en.trigrams not refused")
file(MAKE_DIRECTORY ${WORK}/var)
file(COPY ${LISTS}/ DESTINATION ${WORK}/var)
file(WRITE ${WORK}/var/ex.variant "variant-of en\nthe 120\nan -40\n")
expect_dict_build(${WORK}/var ${WORK}/var.dict 0 "read ex.variant: 2 n-grams, a variant of en"
                  "dict build with ex.variant")
execute_process(COMMAND ${MAILWAVE} dict info ${WORK}/var.dict RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "languages: 4" OR NOT out MATCHES "ex +Latin +\\(variant of en\\)")
  message(FATAL_ERROR "dict info of a variant: ${rc} ${out}")
endif()
file(WRITE ${WORK}/var/ex.variant "variant-of en\nthe 120\nan\n")
expect_dict_build(${WORK}/var ${WORK}/bad.dict 1 "ex.variant: line 3"
                  "a malformed ex.variant not refused")
file(WRITE ${WORK}/var/ex.variant "variant-of fr\nthe 120\n")
expect_dict_build(${WORK}/var ${WORK}/bad.dict 1 "no list for 'fr'"
                  "a variant of a language without a list not refused")
foreach(n 1 2)
  execute_process(COMMAND ${MAILWAVE} dict build --input ${LISTS} --out ${WORK}/d${n}.dict
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dict build failed (${rc}): ${err}")
  endif()
  if(NOT err MATCHES "read en.txt")
    message(FATAL_ERROR "no progress on stderr: ${err}")
  endif()
endforeach()
file(SHA256 ${WORK}/d1.dict h1)
file(SHA256 ${WORK}/d2.dict h2)
if(NOT h1 STREQUAL h2)
  message(FATAL_ERROR "dict build is not deterministic: ${h1} vs ${h2}")
endif()
file(SHA256 ${WORK}/tri.dict h3)
if(h1 STREQUAL h3)
  message(FATAL_ERROR "en.trigrams did not change the dictionary")
endif()
execute_process(COMMAND ${MAILWAVE} dict info ${WORK}/d1.dict RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "languages: 3" OR NOT out MATCHES "sr +Latin")
  message(FATAL_ERROR "dict info: ${rc} ${out}")
endif()
execute_process(COMMAND ${MAILWAVE} dict build --input ${LISTS} --out ${WORK}/cut.dict)
execute_process(COMMAND truncate -s 200 ${WORK}/cut.dict)
execute_process(COMMAND ${MAILWAVE} dict info ${WORK}/cut.dict RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "truncated")
  message(FATAL_ERROR "truncated dictionary not refused: ${rc} ${err}")
endif()
execute_process(COMMAND ${MAILWAVE} langid --dict ${WORK}/cut.dict - INPUT_FILE ${LISTS}/en.txt
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "langid with a truncated dictionary: ${rc} ${err}")
endif()
file(REMOVE_RECURSE ${WORK})
