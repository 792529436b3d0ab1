//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"

// aheadRows is sharedDotsRows' prefetch distance: prefetchAhead of
// sharedrows_amd64.go.
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

	// u = Σ own value·w[c], in column order, four columns a turn.
	XORPS   X0, X0
	MOVQ    R8, CX
	ANDQ    $~3, CX
	JZ      own1check

own4:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   40(SI)(R11*8), X1
	MULSD   (DI)(DX*8), X1
	ADDSD   X1, X0
	MOVBQZX 1(R10)(R11*1), DX
	MOVSD   48(SI)(R11*8), X1
	MULSD   (DI)(DX*8), X1
	ADDSD   X1, X0
	MOVBQZX 2(R10)(R11*1), DX
	MOVSD   56(SI)(R11*8), X1
	MULSD   (DI)(DX*8), X1
	ADDSD   X1, X0
	MOVBQZX 3(R10)(R11*1), DX
	MOVSD   64(SI)(R11*8), X1
	MULSD   (DI)(DX*8), X1
	ADDSD   X1, X0
	ADDQ    $4, R11
	CMPQ    R11, CX
	JB      own4

own1check:
	CMPQ    R11, R8
	JAE     ownDone

own1:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   40(SI)(R11*8), X1
	MULSD   (DI)(DX*8), X1
	ADDSD   X1, X0
	INCQ    R11
	CMPQ    R11, R8
	JB      own1

ownDone:
	// us = Σ w[c] over the shared columns, in order, four a turn.
	XORPS   X2, X2
	MOVQ    R9, CX
	SUBQ    R11, CX
	ANDQ    $~3, CX
	ADDQ    R11, CX
	CMPQ    R11, CX
	JAE     shared1check

shared4:
	MOVBQZX (R10)(R11*1), DX
	ADDSD   (DI)(DX*8), X2
	MOVBQZX 1(R10)(R11*1), DX
	ADDSD   (DI)(DX*8), X2
	MOVBQZX 2(R10)(R11*1), DX
	ADDSD   (DI)(DX*8), X2
	MOVBQZX 3(R10)(R11*1), DX
	ADDSD   (DI)(DX*8), X2
	ADDQ    $4, R11
	CMPQ    R11, CX
	JB      shared4

shared1check:
	CMPQ    R11, R9
	JAE     sharedDone

shared1:
	MOVBQZX (R10)(R11*1), DX
	ADDSD   (DI)(DX*8), X2
	INCQ    R11
	CMPQ    R11, R9
	JB      shared1

sharedDone:
	MULSD 8(SI), X2              // shared·us
	ADDSD X2, X0
	MOVSD X0, (AX)(R14*8)
	INCQ  R14
	CMPQ  R14, n+48(FP)
	JB    row

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

	// g[c] += r·v for the own columns, four a turn.
	MOVQ    R8, CX
	ANDQ    $~3, CX
	JZ      own1check

own4:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   40(SI)(R11*8), X1
	MULSD   X3, X1
	ADDSD   (DI)(DX*8), X1
	MOVSD   X1, (DI)(DX*8)
	MOVBQZX 1(R10)(R11*1), DX
	MOVSD   48(SI)(R11*8), X1
	MULSD   X3, X1
	ADDSD   (DI)(DX*8), X1
	MOVSD   X1, (DI)(DX*8)
	MOVBQZX 2(R10)(R11*1), DX
	MOVSD   56(SI)(R11*8), X1
	MULSD   X3, X1
	ADDSD   (DI)(DX*8), X1
	MOVSD   X1, (DI)(DX*8)
	MOVBQZX 3(R10)(R11*1), DX
	MOVSD   64(SI)(R11*8), X1
	MULSD   X3, X1
	ADDSD   (DI)(DX*8), X1
	MOVSD   X1, (DI)(DX*8)
	ADDQ    $4, R11
	CMPQ    R11, CX
	JB      own4

own1check:
	CMPQ    R11, R8
	JAE     ownDone

own1:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   40(SI)(R11*8), X1
	MULSD   X3, X1
	ADDSD   (DI)(DX*8), X1
	MOVSD   X1, (DI)(DX*8)
	INCQ    R11
	CMPQ    R11, R8
	JB      own1

ownDone:
	// g[c] += rs = r·shared for the other columns, four a turn.
	MOVSD   8(SI), X4
	MULSD   X3, X4
	MOVQ    R9, CX
	SUBQ    R11, CX
	ANDQ    $~3, CX
	ADDQ    R11, CX
	CMPQ    R11, CX
	JAE     shared1check

shared4:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   (DI)(DX*8), X1
	ADDSD   X4, X1
	MOVSD   X1, (DI)(DX*8)
	MOVBQZX 1(R10)(R11*1), DX
	MOVSD   (DI)(DX*8), X1
	ADDSD   X4, X1
	MOVSD   X1, (DI)(DX*8)
	MOVBQZX 2(R10)(R11*1), DX
	MOVSD   (DI)(DX*8), X1
	ADDSD   X4, X1
	MOVSD   X1, (DI)(DX*8)
	MOVBQZX 3(R10)(R11*1), DX
	MOVSD   (DI)(DX*8), X1
	ADDSD   X4, X1
	MOVSD   X1, (DI)(DX*8)
	ADDQ    $4, R11
	CMPQ    R11, CX
	JB      shared4

shared1check:
	CMPQ    R11, R9
	JAE     sharedDone

shared1:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   (DI)(DX*8), X1
	ADDSD   X4, X1
	MOVSD   X1, (DI)(DX*8)
	INCQ    R11
	CMPQ    R11, R9
	JB      shared1

sharedDone:
	INCQ R14
	CMPQ R14, n+40(FP)
	JB   row

done:
	RET
