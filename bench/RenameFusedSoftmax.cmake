# Copies IN to OUT with the kernel @fused_softmax renamed @fused_softmax_1024
# (cmake -DIN=... -DOUT=... -P RenameFusedSoftmax.cmake), for bench/CMakeLists.txt.
file(READ ${IN} text)
string(REPLACE "kernel @fused_softmax(" "kernel @fused_softmax_1024(" text "${text}")
file(WRITE ${OUT} "${text}")
