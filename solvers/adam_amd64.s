//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"

// func adamAVX(theta, grad, m, v *float64, n int, c *[6]float64)
//
// Adam.Step's update on the first n (a multiple of 4) coordinates, four at
// a time, each operation rounded on its own in Step's order: c holds
// 1 − β₁, β₂, 1 − β₂, step, bc2 and ε.
TEXT ·adamAVX(SB), NOSPLIT, $0-48
	MOVQ theta+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ v+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	SHRQ $2, CX
	JZ   done
	VBROADCASTSD 0(AX), Y10          // 1 − β₁
	VBROADCASTSD 8(AX), Y11          // β₂
	VBROADCASTSD 16(AX), Y12         // 1 − β₂
	VBROADCASTSD 24(AX), Y13         // step
	VBROADCASTSD 32(AX), Y14         // bc2
	VBROADCASTSD 40(AX), Y15         // ε

loop:
	VMOVUPD (SI), Y0                 // g
	VMOVUPD (DX), Y1                 // m
	VSUBPD  Y1, Y0, Y2               // g − m
	VMULPD  Y2, Y10, Y2              // (1 − β₁)(g − m)
	VADDPD  Y2, Y1, Y1               // m
	VMOVUPD Y1, (DX)
	VMOVUPD (BX), Y3                 // v
	VMULPD  Y3, Y11, Y3              // β₂v
	VMULPD  Y0, Y12, Y4              // (1 − β₂)g
	VMULPD  Y0, Y4, Y4               // (1 − β₂)g·g
	VADDPD  Y4, Y3, Y3               // v
	VMOVUPD Y3, (BX)
	VSQRTPD Y3, Y3
	VDIVPD  Y14, Y3, Y3              // √v/bc2
	VADDPD  Y15, Y3, Y3              // √v/bc2 + ε
	VMULPD  Y1, Y13, Y5              // step·m
	VDIVPD  Y3, Y5, Y5
	VMOVUPD (DI), Y6
	VSUBPD  Y5, Y6, Y6               // θ
	VMOVUPD Y6, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, BX
	DECQ    CX
	JNZ     loop
	VZEROUPPER

done:
	RET
