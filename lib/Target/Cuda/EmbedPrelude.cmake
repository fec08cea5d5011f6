# Writes OUT: one `{"name", R"..."(text)..."},` entry per file in FILES.
set(content "")
foreach(f ${FILES})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(APPEND content "{\"${name}\", R\"shardc_prelude(${text})shardc_prelude\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
