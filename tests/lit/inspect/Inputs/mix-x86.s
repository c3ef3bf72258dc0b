# A known instruction mix for x86-64: a loop with 2 zmm FMAs, a zmm load and
# store, a gather, a mask op and a call.
	.text
	.globl	mix
	.type	mix,@function
mix:
	xorl	%eax, %eax
.Lloop:
	vmovups	(%rdi,%rax,4), %zmm0
	vfmadd231ps	%zmm1, %zmm2, %zmm0
	vfmadd231ps	%zmm3, %zmm4, %zmm5
	kxnorw	%k0, %k0, %k1
	vgatherdps	(%rsi,%zmm6,4), %zmm7 {%k1}
	vmovups	%zmm0, (%rdx,%rax,4)
	callq	helper
	addq	$16, %rax
	cmpq	%rcx, %rax
	jb	.Lloop
	retq
.Lend:
	.size	mix, .Lend-mix
