//go:build !purego

#include "textflag.h"

// FMAROW broadcasts the element of A at p into e and adds its product with B
// (V24-V27) into the row's accumulators c0-c3.
#define FMAROW(p, e, c0, c1, c2, c3) \
	VLD1R (p), [e.S4]; \
	VFMLA V24.S4, e.S4, c0.S4; \
	VFMLA V25.S4, e.S4, c1.S4; \
	VFMLA V26.S4, e.S4, c2.S4; \
	VFMLA V27.S4, e.S4, c3.S4

// func kernel6x16NEON(k int, a *float32, lda int, b *float32, c *float32, ldc int)
// C[6×16] (row stride ldc) += A[6×k] (row stride lda) · B[k×16] (packed, 16 per k).
// V0-V23 accumulate, starting from C (row r, quarter q in V(4r+q)); V24-V27 hold B,
// V28-V29 a broadcast element of A.
TEXT ·kernel6x16NEON(SB), NOSPLIT, $0-48
	MOVD k+0(FP), R0
	MOVD a+8(FP), R1
	MOVD lda+16(FP), R2
	LSL $2, R2
	MOVD b+24(FP), R3
	MOVD c+32(FP), R4
	MOVD ldc+40(FP), R5
	LSL $2, R5
	ADD R2, R1, R6
	ADD R2, R6, R7
	ADD R2, R7, R8
	ADD R2, R8, R9
	ADD R2, R9, R10
	MOVD R4, R11
	VLD1.P (R11)(R5), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P (R11)(R5), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P (R11)(R5), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P (R11)(R5), [V12.S4, V13.S4, V14.S4, V15.S4]
	VLD1.P (R11)(R5), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P (R11)(R5), [V20.S4, V21.S4, V22.S4, V23.S4]
	CBZ R0, store

loop:
	VLD1.P 64(R3), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMAROW(R1, V28, V0, V1, V2, V3)
	FMAROW(R6, V29, V4, V5, V6, V7)
	FMAROW(R7, V28, V8, V9, V10, V11)
	FMAROW(R8, V29, V12, V13, V14, V15)
	FMAROW(R9, V28, V16, V17, V18, V19)
	FMAROW(R10, V29, V20, V21, V22, V23)
	ADD $4, R1
	ADD $4, R6
	ADD $4, R7
	ADD $4, R8
	ADD $4, R9
	ADD $4, R10
	SUB $1, R0
	CBNZ R0, loop

store:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], (R4)(R5)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], (R4)(R5)
	VST1.P [V8.S4, V9.S4, V10.S4, V11.S4], (R4)(R5)
	VST1.P [V12.S4, V13.S4, V14.S4, V15.S4], (R4)(R5)
	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], (R4)(R5)
	VST1.P [V20.S4, V21.S4, V22.S4, V23.S4], (R4)(R5)
	RET
