//go:build !purego

#include "textflag.h"

// ARGS loads the arguments shared by both kernels: CX = k, SI = a, DX = lda in
// bytes, DI = b, R8 = c, R9 = ldc in bytes.
#define ARGS \
	MOVQ k+0(FP), CX; \
	MOVQ a+8(FP), SI; \
	MOVQ lda+16(FP), DX; \
	SHLQ $2, DX; \
	MOVQ b+24(FP), DI; \
	MOVQ c+32(FP), R8; \
	MOVQ ldc+40(FP), R9; \
	SHLQ $2, R9

// FMA2Y multiplies B (Y12, Y13) by the elements at pa and pb, adding the rows
// into (a0, a1) and (b0, b1).
#define FMA2Y(pa, pb, a0, a1, b0, b1) \
	VBROADCASTSS pa, Y14; \
	VBROADCASTSS pb, Y15; \
	VFMADD231PS  Y12, Y14, a0; \
	VFMADD231PS  Y13, Y14, a1; \
	VFMADD231PS  Y12, Y15, b0; \
	VFMADD231PS  Y13, Y15, b1

// STOREY adds the row (lo, hi) to C at R8 and stores it there.
#define STOREY(lo, hi) \
	VADDPS  (R8), lo, lo; \
	VADDPS  32(R8), hi, hi; \
	VMOVUPS lo, (R8); \
	VMOVUPS hi, 32(R8)

// func kernel6x16AVX2(k int, a *float32, lda int, b *float32, c *float32, ldc int)
// C[6×16] (row stride ldc) += A[6×k] (row stride lda) · B[k×16] (packed, 16 per k).
TEXT ·kernel6x16AVX2(SB), NOSPLIT, $0-48
	ARGS

	LEAQ (SI)(DX*1), AX
	LEAQ (AX)(DX*1), BX
	LEAQ (BX)(DX*1), R10
	LEAQ (R10)(DX*1), R11
	LEAQ (R11)(DX*1), R12

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

	TESTQ CX, CX
	JEQ   store

loop:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	FMA2Y((SI), (AX), Y0, Y1, Y2, Y3)
	FMA2Y((BX), (R10), Y4, Y5, Y6, Y7)
	FMA2Y((R11), (R12), Y8, Y9, Y10, Y11)
	ADDQ    $4, SI
	ADDQ    $4, AX
	ADDQ    $4, BX
	ADDQ    $4, R10
	ADDQ    $4, R11
	ADDQ    $4, R12
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop

store:
	STOREY(Y0, Y1)
	ADDQ R9, R8
	STOREY(Y2, Y3)
	ADDQ R9, R8
	STOREY(Y4, Y5)
	ADDQ R9, R8
	STOREY(Y6, Y7)
	ADDQ R9, R8
	STOREY(Y8, Y9)
	ADDQ R9, R8
	STOREY(Y10, Y11)
	VZEROUPPER
	RET

// LOADZ4 loads four rows of C from R13 (advancing it a row each) into the
// accumulator pairs (a0, a1) … (d0, d1).
#define LOADZ4(a0, a1, b0, b1, c0, c1, d0, d1) \
	VMOVUPS (R13), a0; \
	VMOVUPS 64(R13), a1; \
	ADDQ    R9, R13; \
	VMOVUPS (R13), b0; \
	VMOVUPS 64(R13), b1; \
	ADDQ    R9, R13; \
	VMOVUPS (R13), c0; \
	VMOVUPS 64(R13), c1; \
	ADDQ    R9, R13; \
	VMOVUPS (R13), d0; \
	VMOVUPS 64(R13), d1

// FMA4Z multiplies B (Z24, Z25) by the elements of the four rows of A at p,
// p+lda, p+2·lda and p+3·lda, adding them into (a0, a1) … (d0, d1).
#define FMA4Z(p, a0, a1, b0, b1, c0, c1, d0, d1) \
	VBROADCASTSS (p), Z26; \
	VFMADD231PS  Z24, Z26, a0; \
	VFMADD231PS  Z25, Z26, a1; \
	VBROADCASTSS (p)(DX*1), Z27; \
	VFMADD231PS  Z24, Z27, b0; \
	VFMADD231PS  Z25, Z27, b1; \
	VBROADCASTSS (p)(DX*2), Z28; \
	VFMADD231PS  Z24, Z28, c0; \
	VFMADD231PS  Z25, Z28, c1; \
	VBROADCASTSS (p)(R10*1), Z29; \
	VFMADD231PS  Z24, Z29, d0; \
	VFMADD231PS  Z25, Z29, d1

// STOREZ4 stores the accumulator pairs (a0, a1) … (d0, d1) to four rows of C
// from R8 (advancing it a row each).
#define STOREZ4(a0, a1, b0, b1, c0, c1, d0, d1) \
	VMOVUPS a0, (R8); \
	VMOVUPS a1, 64(R8); \
	ADDQ    R9, R8; \
	VMOVUPS b0, (R8); \
	VMOVUPS b1, 64(R8); \
	ADDQ    R9, R8; \
	VMOVUPS c0, (R8); \
	VMOVUPS c1, 64(R8); \
	ADDQ    R9, R8; \
	VMOVUPS d0, (R8); \
	VMOVUPS d1, 64(R8)

// func kernel12x32AVX512(k int, a *float32, lda int, b *float32, c *float32, ldc int)
// C[12×32] (row stride ldc) += A[12×k] (row stride lda) · B[k×32] (packed, 32 per k).
// Z0-Z23 accumulate (row r in Z2r, Z2r+1), starting from C; Z24-Z25 hold B;
// Z26-Z29 a broadcast element of A.
TEXT ·kernel12x32AVX512(SB), NOSPLIT, $0-48
	ARGS
	LEAQ (DX)(DX*2), R10
	LEAQ (SI)(DX*4), R11
	LEAQ (R11)(DX*4), R12
	MOVQ R8, R13
	LOADZ4(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ R9, R13
	LOADZ4(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ R9, R13
	LOADZ4(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	TESTQ CX, CX
	JEQ store512
loop512:
	VMOVUPS (DI), Z24
	VMOVUPS 64(DI), Z25
	FMA4Z(SI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	FMA4Z(R11, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	FMA4Z(R12, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	ADDQ $4, SI
	ADDQ $4, R11
	ADDQ $4, R12
	ADDQ $128, DI
	DECQ CX
	JNZ loop512
store512:
	STOREZ4(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ R9, R8
	STOREZ4(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ R9, R8
	STOREZ4(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	VZEROUPPER
	RET
