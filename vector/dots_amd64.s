//go:build !purego

#include "textflag.h"

// The three kernels take their rows from R10 on, BX bytes apart, and
// accumulate in Y0…: ROWS4 points R11–R13 at rows 1–3, ZERO4 clears four
// accumulators.
#define ROWS4 \
	LEAQ (R10)(BX*1), R11; \
	LEAQ (R11)(BX*1), R12; \
	LEAQ (R12)(BX*1), R13

#define ZERO4(a, b, c, d) \
	VXORPS a, a, a; \
	VXORPS b, b, b; \
	VXORPS c, c, c; \
	VXORPS d, d, d

// FMA2(off, acc0, acc1): two FMAs of the row at off(AX) with q's Y8, Y9.
#define FMA2(row, acc0, acc1) \
	VFMADD231PS (row)(AX*1), Y8, acc0; \
	VFMADD231PS 32(row)(AX*1), Y9, acc1

// func dots4AVX2(q *float32, rows *float32, dim int, out *float32)
//
// out[i] = Σ q[j]·rows[i·dim+j] for the four rows i = 0..3. dim is a
// positive multiple of 16. Each row keeps two accumulators (eight FMA chains
// in flight) and every load of q serves four rows.
TEXT ·dots4AVX2(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), R10
	MOVQ dim+16(FP), BX
	MOVQ out+24(FP), DI
	SHLQ $2, BX                // BX: bytes per row
	ROWS4
	ZERO4(Y0, Y1, Y2, Y3)
	ZERO4(Y4, Y5, Y6, Y7)
	XORQ AX, AX

loop:
	VMOVUPS (SI)(AX*1), Y8
	VMOVUPS 32(SI)(AX*1), Y9
	FMA2(R10, Y0, Y1)
	FMA2(R11, Y2, Y3)
	FMA2(R12, Y4, Y5)
	FMA2(R13, Y6, Y7)
	ADDQ $64, AX
	CMPQ AX, BX
	JLT  loop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	// Per 128-bit lane: [r0 r0 r1 r1] then [r0 r1 r2 r3] partial sums.
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	VHADDPS Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (DI)
	VZEROUPPER
	RET

// func dot1AVX2(q *float32, row *float32, dim int) float32
//
// The dot product of one row with q; dim is a positive multiple of 16.
TEXT ·dot1AVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ row+8(FP), R10
	MOVQ dim+16(FP), BX
	SHLQ $2, BX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ AX, AX

loop1:
	VMOVUPS (SI)(AX*1), Y8
	VMOVUPS 32(SI)(AX*1), Y9
	FMA2(R10, Y0, Y1)
	ADDQ $64, AX
	CMPQ AX, BX
	JLT  loop1

	// The reduction of dots4AVX2, step for step, so that a row scores the
	// same bits through either kernel.
	VADDPS Y1, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// MADD(row, tmp, acc): acc += pairwise int32 sums of the row's 16 int8
// codes at AX (widened to int16) times q's 16 int16 codes in Y8.
#define MADD(row, tmp, acc) \
	VPMOVSXBW (row)(AX*1), tmp; \
	VPMADDWD Y8, tmp, tmp; \
	VPADDD tmp, acc, acc

// func dots4I8AVX2(q *int16, rows *int8, dim int, out *int32)
//
// out[i] = Σ q[j]·rows[i·dim+j] for the four int8 rows i = 0..3, in int32.
// dim is a positive multiple of 16; the caller keeps Σ|q[j]|·127 within an
// int32 (queryCodeMax).
TEXT ·dots4I8AVX2(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), R10
	MOVQ dim+16(FP), BX
	MOVQ out+24(FP), DI
	ROWS4
	ZERO4(Y0, Y1, Y2, Y3)
	XORQ AX, AX

loop8:
	VMOVDQU (SI)(AX*2), Y8
	MADD(R10, Y4, Y0)
	MADD(R11, Y5, Y1)
	MADD(R12, Y6, Y2)
	MADD(R13, Y7, Y3)
	ADDQ $16, AX
	CMPQ AX, BX
	JLT  loop8

	VPHADDD Y1, Y0, Y0
	VPHADDD Y3, Y2, Y2
	VPHADDD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VMOVDQU X0, (DI)
	VZEROUPPER
	RET
