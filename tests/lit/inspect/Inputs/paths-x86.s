# A loop with a rare path placed after its back edge, as LLVM lays out a
# branch weighted unlikely: the header's strip either goes straight to the
# latch or through four divisions first.
  .text
  .globl rare_path
  .type rare_path,@function
rare_path:
  xorl %eax, %eax
.Lheader:
  vmovups (%rdi,%rax,4), %zmm0
  vcmpps $1, %zmm1, %zmm0, %k1
  kortestw %k1, %k1
  jne .Lrare
.Llatch:
  vaddps %zmm0, %zmm2, %zmm2
  addq $16, %rax
  cmpq %rsi, %rax
  jb .Lheader
  ret
.Lrare:
  vdivps %zmm3, %zmm0, %zmm0
  vdivps %zmm3, %zmm0, %zmm0
  vdivps %zmm3, %zmm0, %zmm0
  vdivps %zmm3, %zmm0, %zmm0
  jmp .Llatch
  .size rare_path, .-rare_path
