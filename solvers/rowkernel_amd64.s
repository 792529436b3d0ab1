//go:build !noasm && !gccgo && !safe

#include "textflag.h"
#include "axpy8_amd64.h"

// The kernels of rowkernel.go for AVX. Four row pointers: SI, R8, R9, R10
// (row r at x + off[r]), column index AX, columns CX. Every product is
// rounded before it is added (VMULPD, then VADDPD: no FMA), as gonum's SSE2
// kernels do.

// ROWS4 sets r0–r3 to base + 8·offs[0…3]: the four rows named by an
// offsets array (*[4]int at offs; r3 may be offs itself, loaded last).
#define ROWS4(offs, base, r0, r1, r2, r3) \
	MOVQ (offs), r0         \
	MOVQ 8(offs), r1        \
	MOVQ 16(offs), r2       \
	MOVQ 24(offs), r3       \
	LEAQ (base)(r0*8), r0   \
	LEAQ (base)(r1*8), r1   \
	LEAQ (base)(r2*8), r2   \
	LEAQ (base)(r3*8), r3

// DOT4 adds the products of four columns (from AX, plus disp bytes) of θ
// (DI) and of rows SI, R8, R9, R10 to the partial sums Y0–Y3.
#define DOT4(disp) \
	VMOVUPD disp(DI)(AX*8), Y4      \
	VMULPD  disp(SI)(AX*8), Y4, Y5  \
	VMULPD  disp(R8)(AX*8), Y4, Y6  \
	VMULPD  disp(R9)(AX*8), Y4, Y7  \
	VMULPD  disp(R10)(AX*8), Y4, Y8 \
	VADDPD  Y5, Y0, Y0              \
	VADDPD  Y6, Y1, Y1              \
	VADDPD  Y7, Y2, Y2              \
	VADDPD  Y8, Y3, Y3

// GEMM4 adds a[l, r]·(the four columns of b's row l in Y8) to acc, with
// a[l, r] at boff(AX); GEMM8 also adds it times the four columns in Y9 to
// acc2.
#define GEMM4(boff, acc) \
	VBROADCASTSD boff(AX), Y10 \
	VMULPD       Y8, Y10, Y11  \
	VADDPD       Y11, acc, acc

#define GEMM8(boff, acc, acc2) \
	GEMM4(boff, acc)          \
	VMULPD Y9, Y10, Y11       \
	VADDPD Y11, acc2, acc2

// func dotRows4AVX(u *[4]float64, x []float64, off, next *[4]int, theta []float64)
TEXT ·dotRows4AVX(SB), NOSPLIT, $0-72
	MOVQ x_base+8(FP), BX
	MOVQ off+32(FP), DX
	MOVQ theta_base+48(FP), DI
	MOVQ theta_len+56(FP), CX
	ROWS4(DX, BX, SI, R8, R9, R10)

	// R12, R13, R14, DX: the same columns of the rows summed next, fetched
	// into cache while these are summed (PREFETCHT0 never faults). u's
	// address is reloaded at the end.
	MOVQ  next+40(FP), DX
	ROWS4(DX, BX, R12, R13, R14, DX)

	// Y0–Y3: row r's partial sums (s₀, s₁, s₂, s₃), sₖ over columns ≡ k mod 4.
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   AX, AX
	MOVQ   CX, R11
	SUBQ   $8, R11
	JL     four

loop:
	// Eight columns (one 64-byte line of each row) per turn.
	PREFETCHT0 (R12)(AX*8)
	PREFETCHT0 (R13)(AX*8)
	PREFETCHT0 (R14)(AX*8)
	PREFETCHT0 (DX)(AX*8)
	DOT4(0)
	DOT4(32)
	ADDQ       $8, AX
	SUBQ       $8, R11
	JGE        loop

four:
	// Four more columns if at least four are left.
	ADDQ    $4, R11
	JL      split
	DOT4(0)
	ADDQ    $4, AX

split:
	// (s₂, s₃) of each row to X9–X12 first: a VEX.128 write to Xr clears
	// the upper half of Yr.
	VEXTRACTF128 $1, Y0, X9
	VEXTRACTF128 $1, Y1, X10
	VEXTRACTF128 $1, Y2, X11
	VEXTRACTF128 $1, Y3, X12
	CMPQ         AX, CX
	JGE          combine

tail:
	// s₀ += x_r[j]·θ[j] for the last 1–3 columns, one at a time.
	VMOVSD (DI)(AX*8), X4
	VMULSD (SI)(AX*8), X4, X5
	VMULSD (R8)(AX*8), X4, X6
	VMULSD (R9)(AX*8), X4, X7
	VMULSD (R10)(AX*8), X4, X8
	VADDSD X5, X0, X0
	VADDSD X6, X1, X1
	VADDSD X7, X2, X2
	VADDSD X8, X3, X3
	INCQ   AX
	CMPQ   AX, CX
	JL     tail

combine:
	// u = (s₀+s₂) + (s₁+s₃), DotUnitary's ADDPD X8, X7 and final ADDSD.
	VADDPD    X9, X0, X0
	VADDPD    X10, X1, X1
	VADDPD    X11, X2, X2
	VADDPD    X12, X3, X3
	VUNPCKHPD X0, X0, X5
	VUNPCKHPD X1, X1, X6
	VUNPCKHPD X2, X2, X7
	VUNPCKHPD X3, X3, X8
	VADDSD    X0, X5, X5
	VADDSD    X1, X6, X6
	VADDSD    X2, X7, X7
	VADDSD    X3, X8, X8
	MOVQ      u+0(FP), DX
	VMOVSD    X5, (DX)
	VMOVSD    X6, 8(DX)
	VMOVSD    X7, 16(DX)
	VMOVSD    X8, 24(DX)
	VZEROUPPER
	RET

// func axpyRows4AVX(g []float64, a *[4]float64, x []float64, off *[4]int)
TEXT ·axpyRows4AVX(SB), NOSPLIT, $0-64
	MOVQ g_base+0(FP), DI
	MOVQ g_len+8(FP), CX
	MOVQ a+24(FP), DX
	MOVQ x_base+32(FP), BX
	MOVQ off+56(FP), AX
	ROWS4(AX, BX, SI, R8, R9, R10)

	// Y0–Y3: a[r] in every lane.
	VBROADCASTSD (DX), Y0
	VBROADCASTSD 8(DX), Y1
	VBROADCASTSD 16(DX), Y2
	VBROADCASTSD 24(DX), Y3
	XORQ         AX, AX
	MOVQ         CX, R11
	SUBQ         $4, R11
	JL           tailcheck

loop:
	VMULPD  (SI)(AX*8), Y0, Y5
	VMULPD  (R8)(AX*8), Y1, Y6
	VMULPD  (R9)(AX*8), Y2, Y7
	VMULPD  (R10)(AX*8), Y3, Y8
	VADDPD  (DI)(AX*8), Y5, Y4
	VADDPD  Y6, Y4, Y4
	VADDPD  Y7, Y4, Y4
	VADDPD  Y8, Y4, Y4
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ    $4, AX
	SUBQ    $4, R11
	JGE     loop

tailcheck:
	CMPQ AX, CX
	JGE  done

tail:
	VMULSD (SI)(AX*8), X0, X5
	VMULSD (R8)(AX*8), X1, X6
	VMULSD (R9)(AX*8), X2, X7
	VMULSD (R10)(AX*8), X3, X8
	VADDSD (DI)(AX*8), X5, X4
	VADDSD X6, X4, X4
	VADDSD X7, X4, X4
	VADDSD X8, X4, X4
	VMOVSD X4, (DI)(AX*8)
	INCQ   AX
	CMPQ   AX, CX
	JL     tail

done:
	VZEROUPPER
	RET

// func axpyRows8AVX(g []float64, a *[8]float64, x []float64, off *[8]int)
TEXT ·axpyRows8AVX(SB), NOSPLIT, $0-64
	MOVQ g_base+0(FP), DI
	MOVQ g_len+8(FP), CX
	MOVQ a+24(FP), DX
	MOVQ x_base+32(FP), BX
	MOVQ off+56(FP), AX
	ROWS4(AX, BX, SI, R8, R9, R10)
	ADDQ $32, AX
	ROWS4(AX, BX, R11, R12, R13, R14)

	// Y0–Y7: a[r] in every lane.
	BROADCAST8(DX)
	XORQ AX, AX
	SHRQ $2, CX
	JZ   done8

loop8:
	AXPY8((DI)(AX*8), (SI)(AX*8), (R8)(AX*8), (R9)(AX*8), (R10)(AX*8), (R11)(AX*8), (R12)(AX*8), (R13)(AX*8), (R14)(AX*8))
	ADDQ $4, AX
	DECQ CX
	JNZ  loop8

done8:
	VZEROUPPER
	RET

// func gemmRows4AVX(c []float64, ldc int, a []float64, lda int, b []float64, ldb, rows, cols int)
//
// Adds Σ_l a[l·lda+r]·b[l·ldb+m] to c[r·ldc+m] for r = 0, …, 3 and
// m = 0, …, cols−1 (cols a multiple of 4), l = 0, …, rows−1 in order, each
// product rounded before it is added, eight columns at a time in registers
// (Y0–Y7: two YMM per row of c).
TEXT ·gemmRows4AVX(SB), NOSPLIT, $0-112
	MOVQ c_base+0(FP), DI
	MOVQ ldc+24(FP), BX
	SHLQ $3, BX
	MOVQ a_base+32(FP), R11 // &a[0]: four entries broadcast per row l
	MOVQ lda+56(FP), DX
	SHLQ $3, DX
	MOVQ b_base+64(FP), R12 // &b[0]: eight (or four) columns per row l
	MOVQ ldb+88(FP), SI
	SHLQ $3, SI
	MOVQ rows+96(FP), CX
	MOVQ cols+104(FP), R10

eight:
	CMPQ    R10, $8
	JL      four
	LEAQ    (DI)(BX*2), R13
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD (DI)(BX*1), Y2
	VMOVUPD 32(DI)(BX*1), Y3
	VMOVUPD (R13), Y4
	VMOVUPD 32(R13), Y5
	VMOVUPD (R13)(BX*1), Y6
	VMOVUPD 32(R13)(BX*1), Y7
	MOVQ    R11, AX
	MOVQ    R12, R14
	MOVQ    CX, R8
	TESTQ   R8, R8
	JZ      store8

rows8:
	VMOVUPD (R14), Y8
	VMOVUPD 32(R14), Y9
	GEMM8(0, Y0, Y1)
	GEMM8(8, Y2, Y3)
	GEMM8(16, Y4, Y5)
	GEMM8(24, Y6, Y7)
	ADDQ         DX, AX
	ADDQ         SI, R14
	DECQ         R8
	JNZ          rows8

store8:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, (DI)(BX*1)
	VMOVUPD Y3, 32(DI)(BX*1)
	VMOVUPD Y4, (R13)
	VMOVUPD Y5, 32(R13)
	VMOVUPD Y6, (R13)(BX*1)
	VMOVUPD Y7, 32(R13)(BX*1)
	ADDQ    $64, DI
	ADDQ    $64, R12
	SUBQ    $8, R10
	JMP     eight

four:
	CMPQ    R10, $4
	JL      done
	LEAQ    (DI)(BX*2), R13
	VMOVUPD (DI), Y0
	VMOVUPD (DI)(BX*1), Y2
	VMOVUPD (R13), Y4
	VMOVUPD (R13)(BX*1), Y6
	MOVQ    R11, AX
	MOVQ    R12, R14
	MOVQ    CX, R8
	TESTQ   R8, R8
	JZ      store4

rows4:
	VMOVUPD (R14), Y8
	GEMM4(0, Y0)
	GEMM4(8, Y2)
	GEMM4(16, Y4)
	GEMM4(24, Y6)
	ADDQ         DX, AX
	ADDQ         SI, R14
	DECQ         R8
	JNZ          rows4

store4:
	VMOVUPD Y0, (DI)
	VMOVUPD Y2, (DI)(BX*1)
	VMOVUPD Y4, (R13)
	VMOVUPD Y6, (R13)(BX*1)

done:
	VZEROUPPER
	RET

// func prefetchSpan(p unsafe.Pointer, bytes uintptr)
TEXT ·prefetchSpan(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ bytes+8(FP), CX
	ADDQ AX, CX
	ANDQ $~63, AX
prefetchLoop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	CMPQ AX, CX
	JB   prefetchLoop
	RET

// func prefetchAddrs(p *uintptr, n int)
TEXT ·prefetchAddrs(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE  addrsDone
addrsLoop:
	MOVQ (AX), DX
	PREFETCHT0 (DX)
	ADDQ $8, AX
	DECQ CX
	JNZ  addrsLoop
addrsDone:
	RET

// func prefetchRecords(base unsafe.Pointer, stride uintptr, rows *int, n, lines int)
TEXT ·prefetchRecords(SB), NOSPLIT, $0-40
	MOVQ base+0(FP), AX
	MOVQ stride+8(FP), BX
	MOVQ rows+16(FP), SI
	MOVQ n+24(FP), CX
	MOVQ lines+32(FP), R8
	TESTQ CX, CX
	JLE  rowsDone
	TESTQ R8, R8
	JLE  rowsDone
rowsLoop:
	MOVQ  (SI), DX
	IMULQ BX, DX
	ADDQ  AX, DX
	MOVQ  R8, R9
linesLoop:
	PREFETCHT0 (DX)
	ADDQ $64, DX
	DECQ R9
	JNZ  linesLoop
	ADDQ $8, SI
	DECQ CX
	JNZ  rowsLoop
rowsDone:
	RET

// func prefetchIndexed(base *int, idx *int, n int)
TEXT ·prefetchIndexed(SB), NOSPLIT, $0-24
	MOVQ base+0(FP), AX
	MOVQ idx+8(FP), SI
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JLE  indexedDone
indexedLoop:
	MOVQ (SI), DX
	PREFETCHT0 (AX)(DX*8)
	ADDQ $8, SI
	DECQ CX
	JNZ  indexedLoop
indexedDone:
	RET
