//go:build !purego

#include "textflag.h"

DATA expc<>+0(SB)/4, $0x3fb8aa3b
DATA expc<>+4(SB)/4, $0x3f000000
DATA expc<>+8(SB)/4, $0x3f318000
DATA expc<>+12(SB)/4, $0xb95e8083
DATA expc<>+16(SB)/4, $0x39506967
DATA expc<>+20(SB)/4, $0x3ab743ce
DATA expc<>+24(SB)/4, $0x3c088908
DATA expc<>+28(SB)/4, $0x3d2aa9c1
DATA expc<>+32(SB)/4, $0x3e2aaaaa
DATA expc<>+36(SB)/4, $0x3f000000
DATA expc<>+40(SB)/4, $0x3f800000
DATA expc<>+44(SB)/4, $0xc2aeac4f
GLOBL expc<>(SB), RODATA|NOPTR, $48

DATA expi<>+0(SB)/4, $127
GLOBL expi<>(SB), RODATA|NOPTR, $4

DATA geluc<>+0(SB)/4, $0x3f3504f3
DATA geluc<>+4(SB)/4, $0x40800000
DATA geluc<>+8(SB)/4, $0xc0800000
DATA geluc<>+12(SB)/4, $0xaf95df0b
DATA geluc<>+16(SB)/4, $0x32edffee
DATA geluc<>+20(SB)/4, $0xb60cff51
DATA geluc<>+24(SB)/4, $0xb86ec2d2
DATA geluc<>+28(SB)/4, $0xba40ac63
DATA geluc<>+32(SB)/4, $0xbb41a1f6
DATA geluc<>+36(SB)/4, $0xbc83dbd4
DATA geluc<>+40(SB)/4, $0xb77460cd
DATA geluc<>+44(SB)/4, $0xb95fbd29
DATA geluc<>+48(SB)/4, $0xbadc924e
DATA geluc<>+52(SB)/4, $0xbbf19bf8
DATA geluc<>+56(SB)/4, $0xbc69b6a7
DATA geluc<>+60(SB)/4, $0x3f000000
GLOBL geluc<>(SB), RODATA|NOPTR, $64

// HORNER is one step of Horner's rule: acc = acc·x + c (Y4 holds c).
#define HORNER(c, x, acc) \
	VBROADCASTSS c, Y4; \
	VFMADD213PS Y4, x, acc

// POLYn sets acc to the polynomial of degree n in x whose coefficients, highest
// first, are the floats at c(SB), c+4(SB), …, c+4n(SB).
#define POLY4(c, x, acc) \
	VBROADCASTSS c+0(SB), acc; \
	HORNER(c+4(SB), x, acc); \
	HORNER(c+8(SB), x, acc); \
	HORNER(c+12(SB), x, acc); \
	HORNER(c+16(SB), x, acc)
#define POLY5(c, x, acc) \
	POLY4(c, x, acc); \
	HORNER(c+20(SB), x, acc)
#define POLY6(c, x, acc) \
	POLY5(c, x, acc); \
	HORNER(c+24(SB), x, acc)

// func expShiftSumAVX2(x *float32, n int, m float32) float32
// x[i] = exp(x[i]-m) for n (a multiple of 8) floats; returns the sum.
TEXT ·expShiftSumAVX2(SB), NOSPLIT, $0-28
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSS m+16(FP), Y15
	VBROADCASTSS expc<>+0(SB), Y14
	VBROADCASTSS expc<>+4(SB), Y13
	VBROADCASTSS expc<>+8(SB), Y12
	VBROADCASTSS expc<>+12(SB), Y11
	VBROADCASTSS expc<>+44(SB), Y10
	VBROADCASTSS expc<>+40(SB), Y9
	VPBROADCASTD expi<>+0(SB), Y8
	VXORPS Y7, Y7, Y7
loop:
	VMOVUPS (DI), Y0
	VSUBPS Y15, Y0, Y0
	VMAXPS Y10, Y0, Y0
	VMULPS Y14, Y0, Y1
	VADDPS Y13, Y1, Y1
	VROUNDPS $1, Y1, Y1
	VFNMADD231PS Y12, Y1, Y0
	VFNMADD231PS Y11, Y1, Y0
	POLY5(expc<>+16, Y0, Y3)
	VMULPS Y0, Y0, Y4
	VFMADD213PS Y0, Y4, Y3
	VADDPS Y9, Y3, Y3
	VCVTTPS2DQ Y1, Y5
	VPADDD Y8, Y5, Y5
	VPSLLD $23, Y5, Y5
	VMULPS Y5, Y3, Y3
	VMOVUPS Y3, (DI)
	VADDPS Y3, Y7, Y7
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ loop
	VEXTRACTF128 $1, Y7, X1
	VADDPS X1, X7, X7
	VHADDPS X7, X7, X7
	VHADDPS X7, X7, X7
	VMOVSS X7, ret+24(FP)
	VZEROUPPER
	RET

// func geluErfAVX2(x *float32, n int)
// x[i] = x[i]·½·(1+erf(x[i]/√2)) for n (a multiple of 8) floats.
TEXT ·geluErfAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSS geluc<>+0(SB), Y15
	VBROADCASTSS geluc<>+4(SB), Y14
	VBROADCASTSS geluc<>+8(SB), Y13
	VBROADCASTSS geluc<>+60(SB), Y12
gloop:
	VMOVUPS (DI), Y0
	VMULPS Y15, Y0, Y1
	VMINPS Y14, Y1, Y1
	VMAXPS Y13, Y1, Y1
	VMULPS Y1, Y1, Y2
	POLY6(geluc<>+12, Y2, Y3)
	VMULPS Y1, Y3, Y3
	POLY4(geluc<>+40, Y2, Y5)
	VDIVPS Y5, Y3, Y3
	VFMADD213PS Y12, Y12, Y3
	VMULPS Y3, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ gloop
	VZEROUPPER
	RET
