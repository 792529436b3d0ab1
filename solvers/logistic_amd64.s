//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"
#include "lanes_amd64.h"

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
DATA logk<>+224(SB)/8, $0xbf1a36e2eb1c432d // −1e-4: the kernels' range
DATA logk<>+232(SB)/8, $0xc034000000000000 // −20
GLOBL logk<>(SB), RODATA|NOPTR, $240

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

// logisticDerivsAVX512 is logisticRows4AVX2's derivative on eight lanes a
// turn (ZMM registers; the exp steps, operation for operation, of its FMA
// path), its constants held in Z16–Z30 and b in Z31. The last turn's lanes
// past n are masked off (a masked load reads nothing and cannot fault).
// Lanes outside the kernel's range are not stored and are counted.

// func logisticDerivsAVX512(r, u, y *float64, n int, b float64) (skipped int)
TEXT ·logisticDerivsAVX512(SB), NOSPLIT, $0-48
	MOVQ r+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), R8
	VBROADCASTSD b+32(FP), Z31
	VBROADCASTSD logk<>+0(SB), Z16   // sign bit
	VBROADCASTSD logk<>+8(SB), Z17   // LOG2E
	VBROADCASTSD logk<>+16(SB), Z18  // LN2U
	VBROADCASTSD logk<>+24(SB), Z19  // LN2L
	VBROADCASTSD logk<>+32(SB), Z20  // 0.0625
	VBROADCASTSD logk<>+40(SB), Z21  // 1/8!
	VBROADCASTSD logk<>+48(SB), Z22  // 1/7!
	VBROADCASTSD logk<>+56(SB), Z23  // 1/6!
	VBROADCASTSD logk<>+64(SB), Z24  // 1/5!
	VBROADCASTSD logk<>+72(SB), Z25  // 1/4!
	VBROADCASTSD logk<>+80(SB), Z26  // 1/3!
	VBROADCASTSD logk<>+88(SB), Z27  // 0.5
	VBROADCASTSD logk<>+96(SB), Z28  // 1.0
	VBROADCASTSD logk<>+104(SB), Z29 // 2.0
	VPBROADCASTQ logk<>+112(SB), Z30 // exponent bias
	VBROADCASTSD logk<>+224(SB), Z14 // −1e-4
	VBROADCASTSD logk<>+232(SB), Z15 // −20
	VPXORQ  Z13, Z13, Z13            // 0
	XORQ    R9, R9                   // lane index
	XORQ    R10, R10                 // skipped lanes

turn:
	TURNLANES(done)
	VMOVUPD.Z (SI)(R9*8), K1, Z0
	VADDPD  Z31, Z0, Z0              // z = u + b
	VPORQ   Z16, Z0, Z1              // x = −|z|
	VCMPPD  $2, Z14, Z1, K1, K2      // −|z| ≤ −1e-4 (false for NaN)
	VCMPPD  $13, Z15, Z1, K2, K2     // and −|z| ≥ −20: the lanes stored

	// e = exp(x), as logisticRows4AVX2.
	VMULPD  Z17, Z1, Z2              // x·LOG2E
	VCVTPD2DQ Z2, Y3                 // k, rounded to nearest
	VCVTDQ2PD Y3, Z2                 // float64(k)
	VFNMADD231PD Z18, Z2, Z1         // x −= k·LN2U (fused)
	VFNMADD231PD Z19, Z2, Z1         // x −= k·LN2L (fused)
	VMULPD  Z20, Z1, Z1              // r = x/16
	VMOVAPD Z21, Z5
	VFMADD213PD Z22, Z1, Z5          // t = r·t + c, fused, down to 1
	VFMADD213PD Z23, Z1, Z5
	VFMADD213PD Z24, Z1, Z5
	VFMADD213PD Z25, Z1, Z5
	VFMADD213PD Z26, Z1, Z5
	VFMADD213PD Z27, Z1, Z5
	VFMADD213PD Z28, Z1, Z5
	VMULPD  Z5, Z1, Z1               // r·t
	VADDPD  Z29, Z1, Z5              // four squarings: r = r·(r + 2)
	VMULPD  Z5, Z1, Z1
	VADDPD  Z29, Z1, Z5
	VMULPD  Z5, Z1, Z1
	VADDPD  Z29, Z1, Z5
	VMULPD  Z5, Z1, Z1
	VADDPD  Z29, Z1, Z5
	VFMADD213PD Z28, Z5, Z1          // the last one + 1, fused
	VPMOVSXDQ Y3, Z8                 // 2^k: (k + 1023) << 52
	VPADDQ  Z30, Z8, Z8
	VPSLLQ  $52, Z8, Z8
	VMULPD  Z8, Z1, Z1               // e

	// g = (1 − y)·p − y·q with p, q = sigmoidPair(z, e).
	VMOVUPD.Z (DX)(R9*8), K1, Z9     // y
	VADDPD  Z1, Z28, Z10             // 1 + e
	VDIVPD  Z10, Z28, Z10            // inv = 1/(1 + e)
	VMULPD  Z10, Z1, Z11             // e·inv
	VCMPPD  $1, Z13, Z0, K3          // z < 0
	VBLENDMPD Z11, Z10, K3, Z2       // p: e·inv where z < 0, else inv
	VBLENDMPD Z10, Z11, K3, Z3       // q: inv where z < 0, else e·inv
	VSUBPD  Z9, Z28, Z4              // 1 − y
	VMULPD  Z2, Z4, Z4               // (1 − y)·p
	VMULPD  Z3, Z9, Z5               // y·q
	VSUBPD  Z5, Z4, Z4
	VMOVUPD Z4, K2, (DI)(R9*8)

	KANDNW  K1, K2, K4               // lanes of the turn not stored
	KMOVW   K4, CX
	POPCNTL CX, CX
	ADDQ    CX, R10
	ADDQ    $8, R9
	JMP     turn

done:
	MOVQ R10, skipped+40(FP)
	VZEROUPPER
	RET
