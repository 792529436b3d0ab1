//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"
#include "lanes_amd64.h"

DATA clipk<>+0(SB)/8, $0x7fffffffffffffff  // all but the sign bit
DATA clipk<>+8(SB)/8, $0x3eb0c6f7a0b5ed8d  // clipSlack = 1e-6
DATA clipk<>+16(SB)/8, $0x3ff0000000000000 // 1.0
GLOBL clipk<>(SB), RODATA|NOPTR, $24

// ADDLANES adds the two lanes of X register x to X0 in order, with the
// temporary t.
#define ADDLANES(x, t) \
	VADDSD    x, X0, X0 \
	VUNPCKHPD x, x, t   \
	VADDSD    t, X0, X0

// func clipSumAVX512(r, norm *float64, n int, clip float64, sum *float64) (clipped int)
TEXT ·clipSumAVX512(SB), NOSPLIT, $0-48
	MOVQ r+0(FP), DI
	MOVQ norm+8(FP), SI
	MOVQ n+16(FP), R8
	MOVQ sum+32(FP), BX
	VBROADCASTSD clip+24(FP), Z20
	VBROADCASTSD clipk<>+0(SB), Z21
	VBROADCASTSD clipk<>+8(SB), Z22
	VBROADCASTSD clipk<>+16(SB), Z23
	VMOVSD  (BX), X0                 // the running sum
	XORQ    R9, R9                   // lane index
	XORQ    R10, R10                 // clipped lanes

turn:
	TURNLANES(done)
	VMOVUPD.Z (DI)(R9*8), K1, Z1     // r
	VMOVUPD.Z (SI)(R9*8), K1, Z2     // norm
	VPANDQ  Z21, Z1, Z3              // |r|
	VMULPD  Z2, Z3, Z3               // |r|·norm
	VADDPD  Z22, Z3, Z3              // x = |r|·norm + 10⁻⁶
	VCMPPD  $14, Z20, Z3, K1, K2     // x > C (false for NaN)
	KORTESTW K2, K2
	JZ      sum
	VDIVPD  Z3, Z20, Z4              // f = C/x
	VCMPPD  $1, Z23, Z4, K2, K3      // f < 1: the lanes clipped
	VMULPD  Z4, Z1, K3, Z1           // r·f
	VMOVUPD Z1, K3, (DI)(R9*8)
	KMOVW   K3, DX
	POPCNTL DX, DX
	ADDQ    DX, R10

sum:
	// X0 += the turn's lanes, in order.
	CMPQ    CX, $8
	JB      part
	VEXTRACTF32X4 $1, Z1, X5
	VEXTRACTF32X4 $2, Z1, X6
	VEXTRACTF32X4 $3, Z1, X7
	ADDLANES(X1, X8)
	ADDLANES(X5, X8)
	ADDLANES(X6, X8)
	ADDLANES(X7, X8)
	ADDQ    $8, R9
	JMP     turn

part:
	// The last 1–7 lanes, one by one from memory.
	VADDSD  (DI)(R9*8), X0, X0
	INCQ    R9
	DECQ    CX
	JNZ     part

done:
	VMOVSD  X0, (BX)
	MOVQ    R10, clipped+40(FP)
	VZEROUPPER
	RET
