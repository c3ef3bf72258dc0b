# A known instruction mix for RISC-V: an RVV loop at e32,m4 with a strided
# load, an indexed load (gather), a vfmacc and a reduction, and an IME op.
	.text
	.globl	mix
	.type	mix,@function
mix:
.Lloop:
	vsetvli	t0, a2, e32, m4, ta, ma
	vle32.v	v8, (a0)
	vlse32.v	v12, (a1), a3
	vluxei32.v	v16, (a1), v8
	vfmacc.vf	v4, fa0, v8
	vfredusum.vs	v1, v4, v1
	vsetvli	zero, t1, e8, m1, ta, ma
	smt.vmadot	v20, v24, v25
	sub	a2, a2, t0
	bnez	a2, .Lloop
	ret
.Lend:
	.size	mix, .Lend-mix
