//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"

// logisticRows4AVX2 evaluates logisticValueDeriv on four lanes with the
// operations, in the order, of its scalar code as compiled for amd64 (see
// logistic_amd64.go): math.Exp is the Go runtime's exp_amd64.s on its FMA
// path, math.Log1p is the pure-Go log1p of math/log1p.go, and every other
// product and sum is rounded on its own. The constants are those of the two
// files, given by their bits.

DATA logk<>+0(SB)/8, $0x8000000000000000   // sign bit
DATA logk<>+8(SB)/8, $0x3ff71547652b82fe   // LOG2E
DATA logk<>+16(SB)/8, $0x3fe62e42fefa3000  // LN2U
DATA logk<>+24(SB)/8, $0x3d53de6af278ece6  // LN2L
DATA logk<>+32(SB)/8, $0x3fb0000000000000  // 0.0625
DATA logk<>+40(SB)/8, $0x3efa01a01a01a01a  // exp Taylor: 1/8!
DATA logk<>+48(SB)/8, $0x3f2a01a01a01a01a  // 1/7!
DATA logk<>+56(SB)/8, $0x3f56c16c16c16c17  // 1/6!
DATA logk<>+64(SB)/8, $0x3f81111111111111  // 1/5!
DATA logk<>+72(SB)/8, $0x3fa5555555555555  // 1/4!
DATA logk<>+80(SB)/8, $0x3fc5555555555555  // 1/3!
DATA logk<>+88(SB)/8, $0x3fe0000000000000  // 0.5
DATA logk<>+96(SB)/8, $0x3ff0000000000000  // 1.0
DATA logk<>+104(SB)/8, $0x4000000000000000 // 2.0
DATA logk<>+112(SB)/8, $0x00000000000003ff // exponent bias
DATA logk<>+120(SB)/8, $0x3fda827999fcef32 // log1p: Sqrt2M1
DATA logk<>+128(SB)/8, $0x000fffffffffffff // mantissa mask
DATA logk<>+136(SB)/8, $0x0006a09e667f3bcd // mantissa of √2
DATA logk<>+144(SB)/8, $0x3fe0000000000000 // exponent of u/2
DATA logk<>+152(SB)/8, $0x3fc2f112df3e5244 // Lp7
DATA logk<>+160(SB)/8, $0x3fc39a09d078c69f // Lp6
DATA logk<>+168(SB)/8, $0x3fc7466496cb03de // Lp5
DATA logk<>+176(SB)/8, $0x3fcc71c51d8e78af // Lp4
DATA logk<>+184(SB)/8, $0x3fd2492494229359 // Lp3
DATA logk<>+192(SB)/8, $0x3fd999999997fa04 // Lp2
DATA logk<>+200(SB)/8, $0x3fe5555555555593 // Lp1
DATA logk<>+208(SB)/8, $0x3fe62e42fee00000 // Ln2Hi
DATA logk<>+216(SB)/8, $0x3dea39ef35793c76 // Ln2Lo
GLOBL logk<>(SB), RODATA|NOPTR, $224

// HORNER sets acc = c + z·acc (products and sums rounded apart, as the
// compiled log1p computes Lpᵢ + z·(…)).
#define HORNER(coff, z, acc) \
	VMULPD       acc, z, acc  \
	VBROADCASTSD logk<>+coff(SB), Y15 \
	VADDPD       acc, Y15, acc

// func logisticRows4AVX2(value, deriv, z, y *[4]float64)
TEXT ·logisticRows4AVX2(SB), NOSPLIT, $0-32
	MOVQ z+16(FP), AX
	MOVQ y+24(FP), BX
	// z and y are read lane by lane: their callers have often just stored
	// them one by one, and a store is forwarded only to a load no wider.
	VMOVSD  (AX), X0                 // z
	VMOVHPD 8(AX), X0, X0
	VMOVSD  16(AX), X1
	VMOVHPD 24(AX), X1, X1
	VINSERTF128 $1, X1, Y0, Y0
	VBROADCASTSD logk<>+0(SB), Y1
	VORPD   Y1, Y0, Y1               // x = −|z|

	// e = exp(x): exp_amd64.s, FMA path, for x ≥ −708 (no overflow or
	// subnormal result: the caller checks).
	VBROADCASTSD logk<>+8(SB), Y2
	VMULPD  Y2, Y1, Y2               // x·LOG2E
	VCVTPD2DQY Y2, X3                // k, rounded to nearest (CVTSD2SL)
	VCVTDQ2PD X3, Y2                 // float64(k)
	VBROADCASTSD logk<>+16(SB), Y4
	VFNMADD231PD Y4, Y2, Y1          // x −= k·LN2U (fused)
	VBROADCASTSD logk<>+24(SB), Y4
	VFNMADD231PD Y4, Y2, Y1          // x −= k·LN2L (fused)
	VBROADCASTSD logk<>+32(SB), Y4
	VMULPD  Y4, Y1, Y1               // r = x/16
	VBROADCASTSD logk<>+40(SB), Y5
	VBROADCASTSD logk<>+48(SB), Y4
	VFMADD213PD Y4, Y1, Y5           // t = r·t + c, fused, down to 1
	VBROADCASTSD logk<>+56(SB), Y4
	VFMADD213PD Y4, Y1, Y5
	VBROADCASTSD logk<>+64(SB), Y4
	VFMADD213PD Y4, Y1, Y5
	VBROADCASTSD logk<>+72(SB), Y4
	VFMADD213PD Y4, Y1, Y5
	VBROADCASTSD logk<>+80(SB), Y4
	VFMADD213PD Y4, Y1, Y5
	VBROADCASTSD logk<>+88(SB), Y4
	VFMADD213PD Y4, Y1, Y5
	VBROADCASTSD logk<>+96(SB), Y7   // 1.0, kept
	VFMADD213PD Y7, Y1, Y5
	VMULPD  Y5, Y1, Y1               // r·t
	VBROADCASTSD logk<>+104(SB), Y6  // 2.0, kept
	VADDPD  Y6, Y1, Y5               // four squarings: r = r·(r + 2)
	VMULPD  Y5, Y1, Y1
	VADDPD  Y6, Y1, Y5
	VMULPD  Y5, Y1, Y1
	VADDPD  Y6, Y1, Y5
	VMULPD  Y5, Y1, Y1
	VADDPD  Y6, Y1, Y5
	VFMADD213PD Y7, Y5, Y1           // the last one + 1, fused
	VPMOVSXDQ X3, Y8                 // 2^k: (k + 1023) << 52
	VPBROADCASTQ logk<>+112(SB), Y9
	VPADDQ  Y9, Y8, Y8
	VPSLLQ  $52, Y8, Y8
	VMULPD  Y8, Y1, Y1               // e

	// g = (1 − y)·p − y·q with p, q = sigmoidPair(z, e).
	VMOVSD  (BX), X14                // y
	VMOVHPD 8(BX), X14, X14
	VMOVSD  16(BX), X15
	VMOVHPD 24(BX), X15, X15
	VINSERTF128 $1, X15, Y14, Y14
	VADDPD  Y1, Y7, Y10              // 1 + e
	VDIVPD  Y10, Y7, Y10             // inv = 1/(1 + e)
	VMULPD  Y10, Y1, Y11             // e·inv
	VXORPD  Y13, Y13, Y13            // 0
	VCMPPD  $1, Y13, Y0, Y12         // z < 0
	VBLENDVPD Y12, Y11, Y10, Y2      // p: e·inv where z < 0, else inv
	VBLENDVPD Y12, Y10, Y11, Y3      // q: inv where z < 0, else e·inv
	VSUBPD  Y14, Y7, Y4              // 1 − y
	VMULPD  Y2, Y4, Y4               // (1 − y)·p
	VMULPD  Y3, Y14, Y5              // y·q
	VSUBPD  Y5, Y4, Y4
	MOVQ    deriv+8(FP), CX
	VMOVUPD Y4, (CX)
	MOVQ    value+0(FP), CX
	TESTQ   CX, CX
	JZ      done                     // derivatives only

	// Y13 = max(z, 0) − y·z (z ≠ 0: the caller checks).
	VMAXPD  Y13, Y0, Y13
	VMULPD  Y0, Y14, Y5
	VSUBPD  Y5, Y13, Y13

	// log1p(e) for 2⁻²⁹ ≤ e < 1 − 2⁻⁵⁰ (the caller checks): e < Sqrt2M1
	// gives f = e, k = 0; otherwise u = 1 + e, c = (e − (u − 1))/u, and
	// u's mantissa below √2's gives f = u − 1, k = 0, else f = u/2 − 1,
	// k = 1.
	VBROADCASTSD logk<>+120(SB), Y2
	VCMPPD  $1, Y2, Y1, Y2           // A: e < Sqrt2M1
	VADDPD  Y1, Y7, Y3               // u = 1 + e
	VSUBPD  Y7, Y3, Y4               // u − 1
	VSUBPD  Y4, Y1, Y5               // e − (u − 1)
	VDIVPD  Y3, Y5, Y5               // c
	VPBROADCASTQ logk<>+128(SB), Y6
	VPAND   Y6, Y3, Y6               // iu: u's mantissa
	VPBROADCASTQ logk<>+136(SB), Y8
	VPCMPGTQ Y6, Y8, Y8              // C: iu < mantissa of √2
	VPBROADCASTQ logk<>+144(SB), Y9
	VPOR    Y9, Y6, Y6               // u/2
	VSUBPD  Y7, Y6, Y6               // u/2 − 1
	VBLENDVPD Y8, Y4, Y6, Y6         // f of e ≥ Sqrt2M1
	VBLENDVPD Y2, Y1, Y6, Y6         // f
	VORPD   Y2, Y8, Y2               // k = 0 (A or C)
	VBROADCASTSD logk<>+88(SB), Y3
	VMULPD  Y6, Y3, Y3               // 0.5·f
	VMULPD  Y6, Y3, Y3               // hfsq = 0.5·f·f
	VBROADCASTSD logk<>+104(SB), Y4
	VADDPD  Y6, Y4, Y4               // 2 + f
	VDIVPD  Y4, Y6, Y4               // s = f/(2 + f)
	VMULPD  Y4, Y4, Y8               // z = s·s
	VBROADCASTSD logk<>+152(SB), Y9  // R = z·(Lp1 + z·(Lp2 + … + z·Lp7))
	HORNER(160, Y8, Y9)
	HORNER(168, Y8, Y9)
	HORNER(176, Y8, Y9)
	HORNER(184, Y8, Y9)
	HORNER(192, Y8, Y9)
	HORNER(200, Y8, Y9)
	VMULPD  Y9, Y8, Y9               // R
	VADDPD  Y9, Y3, Y9               // hfsq + R
	VMULPD  Y9, Y4, Y9               // s·(hfsq + R)
	VSUBPD  Y9, Y3, Y10              // k = 0: f − (hfsq − s·(hfsq + R))
	VSUBPD  Y10, Y6, Y10
	VBROADCASTSD logk<>+216(SB), Y11 // k = 1: Ln2Hi − ((hfsq − (s·(hfsq + R) + (Ln2Lo + c))) − f)
	VADDPD  Y5, Y11, Y11
	VADDPD  Y11, Y9, Y11
	VSUBPD  Y11, Y3, Y11
	VSUBPD  Y6, Y11, Y11
	VBROADCASTSD logk<>+208(SB), Y12
	VSUBPD  Y11, Y12, Y11
	VBLENDVPD Y2, Y10, Y11, Y10      // log1p(e)

	VADDPD  Y10, Y13, Y13            // v = (max(z, 0) − y·z) + log1p(e)
	VMOVUPD Y13, (CX)

done:
	VZEROUPPER
	RET
