//go:build !noasm && !gccgo && !safe

#include "textflag.h"
#include "axpy8_amd64.h"

// Kernels of packed8.go over one block of eight rows in the packed layout:
// chunk c holds the four columns 4c … 4c+3 of row 0, then of row 1, …,
// row 7 (256 bytes), so a block is read in address order. Every product is
// rounded before it is added (VMULPD, then VADDPD: no FMA).

// func dotPacked8AVX(s *[8][4]float64, p []float64, theta []float64, chunks int)
TEXT ·dotPacked8AVX(SB), NOSPLIT, $0-64
	MOVQ p_base+8(FP), SI
	MOVQ theta_base+32(FP), DI
	MOVQ chunks+56(FP), CX

	// Y0–Y7: row r's partial sums (s₀, s₁, s₂, s₃), sₖ over columns ≡ k mod 4.
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ  CX, CX
	JZ     store

loop:
	VMOVUPD (DI), Y8
	VMULPD  0(SI), Y8, Y9
	VMULPD  32(SI), Y8, Y10
	VMULPD  64(SI), Y8, Y11
	VMULPD  96(SI), Y8, Y12
	VADDPD  Y9, Y0, Y0
	VADDPD  Y10, Y1, Y1
	VADDPD  Y11, Y2, Y2
	VADDPD  Y12, Y3, Y3
	VMULPD  128(SI), Y8, Y13
	VMULPD  160(SI), Y8, Y14
	VMULPD  192(SI), Y8, Y15
	VMULPD  224(SI), Y8, Y9
	VADDPD  Y13, Y4, Y4
	VADDPD  Y14, Y5, Y5
	VADDPD  Y15, Y6, Y6
	VADDPD  Y9, Y7, Y7
	ADDQ    $256, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

store:
	MOVQ    s+0(FP), AX
	STORE8(AX)
	VZEROUPPER
	RET

// func axpyPacked8AVX(g []float64, a *[8]float64, p []float64, chunks int)
TEXT ·axpyPacked8AVX(SB), NOSPLIT, $0-64
	MOVQ g_base+0(FP), DI
	MOVQ a+24(FP), DX
	MOVQ p_base+32(FP), SI
	MOVQ chunks+56(FP), CX

	// Y0–Y7: a[r] in every lane.
	BROADCAST8(DX)
	TESTQ CX, CX
	JZ    done

loop:
	// g[j] = ((g[j] + a₀x₀[j]) + a₁x₁[j]) + … + a₇x₇[j] for four j.
	AXPY8((DI), 0(SI), 32(SI), 64(SI), 96(SI), 128(SI), 160(SI), 192(SI), 224(SI))
	ADDQ    $256, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
