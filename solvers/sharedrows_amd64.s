//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"

// aheadRows is sharedDotsRows' prefetch distance, prefetchAhead of
// dpsgd.go.
#define aheadRows 16

// The one-byte-column kernels of sharedrows_amd64.go. A record (SI) holds
// its rowHead (shared value at 8, own and n as uint16 at 32 and 34), its
// own values from 40 and then its n one-byte columns (R10). Column index
// R11 runs over 0…n−1: the first own columns have a value each, the rest
// the shared value. Every product is rounded before it is added (MULSD,
// then ADDSD: no fused multiply–add), in the order of sharedDot and
// sharedAddScaled.

// RECORD starts on the record of the row (BX)(R14*8) of a batch, in an
// array at R12 of R13 bytes per record: SI its address, R8 its own count,
// R9 its column count, R10 its columns, R11 = 0 the column index.
#define RECORD \
	MOVQ    (BX)(R14*8), SI     \
	IMULQ   R13, SI             \
	ADDQ    R12, SI             \
	MOVWQZX 32(SI), R8          \
	MOVWQZX 34(SI), R9          \
	LEAQ    40(SI)(R8*8), R10   \
	XORQ    R11, R11

// RUN walks the columns R11, R11 + 1, … below end: BODY4 on four at a
// time (columns R11 to R11 + 3), then BODY1 on the 0–3 left, one at a
// time, in column order; the labels are the loops' and the exit's.
#define RUN(end, BODY4, BODY1, l4, l1check, l1, ldone) \
	MOVQ end, CX; SUBQ R11, CX; ANDQ $~3, CX; ADDQ R11, CX \
	CMPQ R11, CX; JAE l1check \
l4: \
	BODY4; ADDQ $4, R11; CMPQ R11, CX; JB l4 \
l1check: \
	CMPQ R11, end; JAE ldone \
l1: \
	BODY1; INCQ R11; CMPQ R11, end; JB l1 \
ldone:

// The kernels' column bodies, for column R11 + k (its own value, if any,
// at off(SI)(R11*8)): OWNDOT adds value·w[c] to u (X0), SHAREDDOT adds w[c]
// to us (X2), OWNADD adds r·value (r in X3) to g[c], SHAREDADD adds rs (X4)
// to g[c].
#define OWNDOT(k, off) MOVBQZX k(R10)(R11*1), DX; MOVSD off(SI)(R11*8), X1; MULSD (DI)(DX*8), X1; ADDSD X1, X0
#define SHAREDDOT(k) MOVBQZX k(R10)(R11*1), DX; ADDSD (DI)(DX*8), X2
#define OWNADD(k, off) MOVBQZX k(R10)(R11*1), DX; MOVSD off(SI)(R11*8), X1; MULSD X3, X1; ADDSD (DI)(DX*8), X1; MOVSD X1, (DI)(DX*8)
#define SHAREDADD(k) MOVBQZX k(R10)(R11*1), DX; MOVSD (DI)(DX*8), X1; ADDSD X4, X1; MOVSD X1, (DI)(DX*8)
#define OWNDOT4 OWNDOT(0, 40); OWNDOT(1, 48); OWNDOT(2, 56); OWNDOT(3, 64)
#define OWNDOT1 OWNDOT(0, 40)
#define SHAREDDOT4 SHAREDDOT(0); SHAREDDOT(1); SHAREDDOT(2); SHAREDDOT(3)
#define SHAREDDOT1 SHAREDDOT(0)
#define OWNADD4 OWNADD(0, 40); OWNADD(1, 48); OWNADD(2, 56); OWNADD(3, 64)
#define OWNADD1 OWNADD(0, 40)
#define SHAREDADD4 SHAREDADD(0); SHAREDADD(1); SHAREDADD(2); SHAREDADD(3)
#define SHAREDADD1 SHAREDADD(0)

// func sharedDotsRows(u, y, norm *float64, base unsafe.Pointer, stride uintptr, rows *int, n, m, nk, lines int, w *[256]float64)
TEXT ·sharedDotsRows(SB), NOSPLIT, $0-88
	MOVQ u+0(FP), AX
	MOVQ base+24(FP), R12
	MOVQ stride+32(FP), R13
	MOVQ rows+40(FP), BX
	MOVQ w+80(FP), DI
	XORQ R14, R14
	CMPQ R14, n+48(FP)
	JGE  done

row:
	// The first lines cache lines of the record aheadRows rows on.
	LEAQ  aheadRows(R14), DX
	CMPQ  DX, m+56(FP)
	JAE   fetched
	MOVQ  (BX)(DX*8), DX
	IMULQ R13, DX
	ADDQ  R12, DX
	MOVQ  lines+72(FP), CX
	TESTQ CX, CX
	JLE   fetched

prefetch:
	PREFETCHT0 (DX)
	ADDQ $64, DX
	DECQ CX
	JNZ  prefetch

fetched:
	RECORD
	MOVQ    y+8(FP), DX          // y[k] = the row's target
	MOVSD   (SI), X5
	MOVSD   X5, (DX)(R14*8)
	MOVQ    nk+64(FP), DX        // norm[k] = its norm[nk]
	MOVSD   16(SI)(DX*8), X5
	MOVQ    norm+16(FP), DX
	MOVSD   X5, (DX)(R14*8)
	XORPS   X0, X0               // u = Σ own value·w[c], in column order
	RUN(R8, OWNDOT4, OWNDOT1, own4, own1check, own1, ownDone)
	XORPS   X2, X2               // us = Σ w[c] over the shared columns
	RUN(R9, SHAREDDOT4, SHAREDDOT1, shared4, shared1check, shared1, sharedDone)
	MULSD   8(SI), X2            // shared·us
	ADDSD   X2, X0
	MOVSD   X0, (AX)(R14*8)
	INCQ    R14
	CMPQ    R14, n+48(FP)
	JB      row

done:
	RET

// func sharedAddsRows(grad *[256]float64, a *float64, base unsafe.Pointer, stride uintptr, rows *int, n int)
TEXT ·sharedAddsRows(SB), NOSPLIT, $0-48
	MOVQ grad+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ base+16(FP), R12
	MOVQ stride+24(FP), R13
	MOVQ rows+32(FP), BX
	XORQ R14, R14
	CMPQ R14, n+40(FP)
	JGE  done

row:
	RECORD
	MOVSD   (AX)(R14*8), X3      // r
	RUN(R8, OWNADD4, OWNADD1, own4, own1check, own1, ownDone)
	MOVSD   8(SI), X4            // rs = r·shared
	MULSD   X3, X4
	RUN(R9, SHAREDADD4, SHAREDADD1, shared4, shared1check, shared1, sharedDone)
	INCQ    R14
	CMPQ    R14, n+40(FP)
	JB      row

done:
	RET
