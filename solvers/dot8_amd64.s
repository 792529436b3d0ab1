//go:build !noasm && !gccgo && !safe

#include "textflag.h"
#include "axpy8_amd64.h"

// dotLanes8AVX of dot8_amd64.go. Eight row pointers SI, R8–R14 and θ's DI
// advance by 64 bytes (eight columns) per turn; CX counts the columns left;
// DX is the prefetch distance in bytes. Every product is rounded before it
// is added (VMULPD, then VADDPD: no FMA), as in gonum's DotUnitary.

// LANES adds the products of four columns (disp bytes on) of θ (in Y8) and
// of the eight rows to the partial sums Y0–Y7.
#define LANES(disp) \
	VMULPD disp(SI), Y8, Y9   \
	VMULPD disp(R8), Y8, Y10  \
	VMULPD disp(R9), Y8, Y11  \
	VMULPD disp(R10), Y8, Y12 \
	VADDPD Y9, Y0, Y0         \
	VADDPD Y10, Y1, Y1        \
	VADDPD Y11, Y2, Y2        \
	VADDPD Y12, Y3, Y3        \
	VMULPD disp(R11), Y8, Y13 \
	VMULPD disp(R12), Y8, Y14 \
	VMULPD disp(R13), Y8, Y15 \
	VMULPD disp(R14), Y8, Y9  \
	VADDPD Y13, Y4, Y4        \
	VADDPD Y14, Y5, Y5        \
	VADDPD Y15, Y6, Y6        \
	VADDPD Y9, Y7, Y7

// func dotLanes8AVX(s *[8][4]float64, x []float64, off *[8]int, theta []float64, cols int, pf int)
TEXT ·dotLanes8AVX(SB), NOSPLIT, $0-80
	MOVQ x_base+8(FP), BX
	MOVQ off+32(FP), AX
	MOVQ theta_base+40(FP), DI
	MOVQ cols+64(FP), CX
	MOVQ pf+72(FP), DX
	MOVQ (AX), SI
	MOVQ 8(AX), R8
	MOVQ 16(AX), R9
	MOVQ 24(AX), R10
	MOVQ 32(AX), R11
	MOVQ 40(AX), R12
	MOVQ 48(AX), R13
	MOVQ 56(AX), R14
	LEAQ (BX)(SI*8), SI
	LEAQ (BX)(R8*8), R8
	LEAQ (BX)(R9*8), R9
	LEAQ (BX)(R10*8), R10
	LEAQ (BX)(R11*8), R11
	LEAQ (BX)(R12*8), R12
	LEAQ (BX)(R13*8), R13
	LEAQ (BX)(R14*8), R14

	// Y0–Y7: row r's partial sums (s₀, s₁, s₂, s₃), sₖ over columns ≡ k mod 4.
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	SUBQ   $8, CX
	JL     four

loop:
	// Eight columns (one 64-byte line of each row) per turn; the same line
	// pf bytes on is fetched into cache meanwhile.
	PREFETCHT0 (SI)(DX*1)
	PREFETCHT0 (R8)(DX*1)
	PREFETCHT0 (R9)(DX*1)
	PREFETCHT0 (R10)(DX*1)
	PREFETCHT0 (R11)(DX*1)
	PREFETCHT0 (R12)(DX*1)
	PREFETCHT0 (R13)(DX*1)
	PREFETCHT0 (R14)(DX*1)
	VMOVUPD    (DI), Y8
	LANES(0)
	VMOVUPD    32(DI), Y8
	LANES(32)
	ADDQ       $64, SI
	ADDQ       $64, R8
	ADDQ       $64, R9
	ADDQ       $64, R10
	ADDQ       $64, R11
	ADDQ       $64, R12
	ADDQ       $64, R13
	ADDQ       $64, R14
	ADDQ       $64, DI
	SUBQ       $8, CX
	JGE        loop

four:
	// Four more columns if four are left (cols is a multiple of 4).
	ADDQ    $8, CX
	JZ      store
	VMOVUPD (DI), Y8
	LANES(0)

store:
	MOVQ    s+0(FP), AX
	STORE8(AX)
	VZEROUPPER
	RET
