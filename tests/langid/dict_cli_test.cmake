# `mailwave dict build` twice on the same input must give byte-identical files, and
# `mailwave dict info` must read them; a truncated copy must be refused with exit status 1.
# A <code>.trigrams beside a list is read (and changes the file); a malformed one fails the
# build naming the file and the line. A <code>.variant makes <code> a variant of the language
# it names (dict info says so); a malformed one, or one of a language without a list, fails.
# Run by ctest: cmake -DMAILWAVE=... -DLISTS=... -DWORK=... -P dict_cli_test.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(MAKE_DIRECTORY ${WORK}/tri)
file(COPY ${LISTS}/ DESTINATION ${WORK}/tri)
file(WRITE ${WORK}/tri/en.trigrams "the 30000000\nand 20000000\n")
execute_process(COMMAND ${MAILWAVE} dict build --input ${WORK}/tri --out ${WORK}/tri.dict
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "read en.trigrams: 2 trigrams")
  message(FATAL_ERROR "dict build with en.trigrams: ${rc} ${err}")
endif()
file(WRITE ${WORK}/tri/en.trigrams "the 30000000\nand\n")
execute_process(COMMAND ${MAILWAVE} dict build --input ${WORK}/tri --out ${WORK}/bad.dict
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "en.trigrams: line 2")
  message(FATAL_ERROR "a malformed en.trigrams not refused: ${rc} ${err}")
endif()
file(MAKE_DIRECTORY ${WORK}/var)
file(COPY ${LISTS}/ DESTINATION ${WORK}/var)
file(WRITE ${WORK}/var/ex.variant "variant-of en\nthe 120\nan -40\n")
execute_process(COMMAND ${MAILWAVE} dict build --input ${WORK}/var --out ${WORK}/var.dict
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "read ex.variant: 2 n-grams, a variant of en")
  message(FATAL_ERROR "dict build with ex.variant: ${rc} ${err}")
endif()
execute_process(COMMAND ${MAILWAVE} dict info ${WORK}/var.dict RESULT_VARIABLE rc
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "languages: 4" OR NOT out MATCHES "ex +Latin +\\(variant of en\\)")
  message(FATAL_ERROR "dict info of a variant: ${rc} ${out}")
endif()
file(WRITE ${WORK}/var/ex.variant "variant-of en\nthe 120\nan\n")
execute_process(COMMAND ${MAILWAVE} dict build --input ${WORK}/var --out ${WORK}/bad.dict
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "ex.variant: line 3")
  message(FATAL_ERROR "a malformed ex.variant not refused: ${rc} ${err}")
endif()
file(WRITE ${WORK}/var/ex.variant "variant-of fr\nthe 120\n")
execute_process(COMMAND ${MAILWAVE} dict build --input ${WORK}/var --out ${WORK}/bad.dict
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "no list for 'fr'")
  message(FATAL_ERROR "a variant of a language without a list not refused: ${rc} ${err}")
endif()
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
