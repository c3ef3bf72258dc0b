// A known instruction mix for AArch64: an SVE loop with one predicated load,
// two fmla, a gather and a whilelo.
	.text
	.globl	mix
	.type	mix,@function
mix:
	mov	x8, xzr
.Lloop:
	ld1w	{ z0.s }, p0/z, [x0, x8, lsl #2]
	fmla	z1.s, p0/m, z0.s, z2.s
	fmla	z3.s, p0/m, z0.s, z4.s
	ld1w	{ z5.s }, p0/z, [x1, z6.s, sxtw #2]
	incw	x8
	whilelo	p0.s, x8, x2
	b.mi	.Lloop
	ret
.Lend:
	.size	mix, .Lend-mix
