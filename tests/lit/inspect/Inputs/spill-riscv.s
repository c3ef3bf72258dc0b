# Whole-register loads and stores on RISC-V: LLVM moves data with them (an
# unmasked VLMAX strip) and spills with them. Only those through an address
# computed from sp are spills and reloads.
	.text
	.globl	spill
	.type	spill,@function
spill:
.Lloop:
	vl2re32.v	v8, (a0)
	csrr	a2, vlenb
	slli	a2, a2, 1
	add	a2, a2, sp
	addi	a2, a2, 16
	vs2r.v	v8, (a2)
	vl2re32.v	v10, (a2)
	vs2r.v	v10, (a1)
	ld	a3, 8(sp)
	vs2r.v	v10, (a3)
	vs2r.v	v10, (sp)
	addi	a0, a0, 64
	addi	a1, a1, 64
	bnez	a4, .Lloop
	ret
.Lend:
	.size	spill, .Lend-spill
