//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// ChaCha's constant words "expand 32-byte k" ([Ber08] §2), then the block
// counters 0…15, one per lane.
DATA chachak<>+0(SB)/4, $0x61707865
DATA chachak<>+4(SB)/4, $0x3320646e
DATA chachak<>+8(SB)/4, $0x79622d32
DATA chachak<>+12(SB)/4, $0x6b206574
DATA chachak<>+16(SB)/4, $0
DATA chachak<>+20(SB)/4, $1
DATA chachak<>+24(SB)/4, $2
DATA chachak<>+28(SB)/4, $3
DATA chachak<>+32(SB)/4, $4
DATA chachak<>+36(SB)/4, $5
DATA chachak<>+40(SB)/4, $6
DATA chachak<>+44(SB)/4, $7
DATA chachak<>+48(SB)/4, $8
DATA chachak<>+52(SB)/4, $9
DATA chachak<>+56(SB)/4, $10
DATA chachak<>+60(SB)/4, $11
DATA chachak<>+64(SB)/4, $12
DATA chachak<>+68(SB)/4, $13
DATA chachak<>+72(SB)/4, $14
DATA chachak<>+76(SB)/4, $15
GLOBL chachak<>(SB), RODATA|NOPTR, $80

// QR is ChaCha's quarter-round on (a, b, c, d) ([Ber08] §2), 16 lanes.
#define QR(a, b, c, d) \
	VPADDD  b, a, a   \
	VPXORD  a, d, d   \
	VPROLD  $16, d, d \
	VPADDD  d, c, c   \
	VPXORD  c, b, b   \
	VPROLD  $12, b, b \
	VPADDD  b, a, a   \
	VPXORD  a, d, d   \
	VPROLD  $8, d, d  \
	VPADDD  d, c, c   \
	VPXORD  c, b, b   \
	VPROLD  $7, b, b

// STORE writes word w (register z) of the 16 blocks in chacha8rand's
// order: lanes 4q…4q+3 (blocks 4q…4q+3) at byte 256·q + 16·w of out.
#define STORE(z, x, off) \
	VMOVDQU       x, off(DI)         \
	VEXTRACTI32X4 $1, z, 256+off(DI) \
	VEXTRACTI32X4 $2, z, 512+off(DI) \
	VEXTRACTI32X4 $3, z, 768+off(DI)

// func block16AVX512(seed *[4]uint64, out *[cycleWords]uint64)
TEXT ·block16AVX512(SB), NOSPLIT, $0-16
	MOVQ seed+0(FP), AX
	MOVQ out+8(FP), DI
	VPBROADCASTD chachak<>+0(SB), Z0
	VPBROADCASTD chachak<>+4(SB), Z1
	VPBROADCASTD chachak<>+8(SB), Z2
	VPBROADCASTD chachak<>+12(SB), Z3
	VPBROADCASTD 0(AX), Z16  // the key words, kept for the final addition
	VPBROADCASTD 4(AX), Z17
	VPBROADCASTD 8(AX), Z18
	VPBROADCASTD 12(AX), Z19
	VPBROADCASTD 16(AX), Z20
	VPBROADCASTD 20(AX), Z21
	VPBROADCASTD 24(AX), Z22
	VPBROADCASTD 28(AX), Z23
	VMOVDQA32    Z16, Z4
	VMOVDQA32    Z17, Z5
	VMOVDQA32    Z18, Z6
	VMOVDQA32    Z19, Z7
	VMOVDQA32    Z20, Z8
	VMOVDQA32    Z21, Z9
	VMOVDQA32    Z22, Z10
	VMOVDQA32    Z23, Z11
	VMOVDQU32    chachak<>+16(SB), Z12
	VPXORD       Z13, Z13, Z13
	VPXORD       Z14, Z14, Z14
	VPXORD       Z15, Z15, Z15
	MOVQ         $4, CX

rounds:
	// A double round: columns, then diagonals ([Ber08] §2).
	QR(Z0, Z4, Z8, Z12)
	QR(Z1, Z5, Z9, Z13)
	QR(Z2, Z6, Z10, Z14)
	QR(Z3, Z7, Z11, Z15)
	QR(Z0, Z5, Z10, Z15)
	QR(Z1, Z6, Z11, Z12)
	QR(Z2, Z7, Z8, Z13)
	QR(Z3, Z4, Z9, Z14)
	DECQ CX
	JNZ  rounds

	// chacha8rand adds back the key words only ([CV23]).
	VPADDD Z16, Z4, Z4
	VPADDD Z17, Z5, Z5
	VPADDD Z18, Z6, Z6
	VPADDD Z19, Z7, Z7
	VPADDD Z20, Z8, Z8
	VPADDD Z21, Z9, Z9
	VPADDD Z22, Z10, Z10
	VPADDD Z23, Z11, Z11

	STORE(Z0, X0, 0)
	STORE(Z1, X1, 16)
	STORE(Z2, X2, 32)
	STORE(Z3, X3, 48)
	STORE(Z4, X4, 64)
	STORE(Z5, X5, 80)
	STORE(Z6, X6, 96)
	STORE(Z7, X7, 112)
	STORE(Z8, X8, 128)
	STORE(Z9, X9, 144)
	STORE(Z10, X10, 160)
	STORE(Z11, X11, 176)
	STORE(Z12, X12, 192)
	STORE(Z13, X13, 208)
	STORE(Z14, X14, 224)
	STORE(Z15, X15, 240)
	VZEROUPPER
	RET
