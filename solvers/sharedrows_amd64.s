//go:build !noasm && !gccgo && !safe && !amd64.v3

#include "textflag.h"

// The one-byte-column kernels of sharedrows_amd64.go. A record (SI) holds
// its rowHead (shared value at 8, own and n as uint16 at 32 and 34), its
// own values from 40 and then its n one-byte columns (R10). Column index
// R11 runs over 0…n−1: the first own columns have a value each, the rest
// the shared value. Every product is rounded before it is added (MULSD,
// then ADDSD: no fused multiply–add), in the order of sharedDot and
// sharedAddScaled.

// RECORD starts on the record at (BX): SI its address, R8 its own count,
// R9 its column count, R10 its columns, R11 = 0 the column index.
#define RECORD \
	MOVQ    (BX), SI            \
	MOVWQZX 32(SI), R8          \
	MOVWQZX 34(SI), R9          \
	LEAQ    40(SI)(R8*8), R10   \
	XORQ    R11, R11

// func sharedDots8(u *[8]float64, rec *[8]unsafe.Pointer, rows int, w *[256]float64)
TEXT ·sharedDots8(SB), NOSPLIT, $0-32
	MOVQ u+0(FP), AX
	MOVQ rec+8(FP), BX
	MOVQ rows+16(FP), CX
	MOVQ w+24(FP), DI
	TESTQ CX, CX
	JLE  done

row:
	RECORD
	XORPS   X0, X0               // u = Σ own value·w[c], in column order
	TESTQ   R8, R8
	JZ      ownDone

own:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   40(SI)(R11*8), X1
	MULSD   (DI)(DX*8), X1
	ADDSD   X1, X0
	INCQ    R11
	CMPQ    R11, R8
	JB      own

ownDone:
	XORPS X2, X2                 // us = Σ w[c] over the shared columns
	CMPQ  R11, R9
	JAE   sharedDone

shared:
	MOVBQZX (R10)(R11*1), DX
	ADDSD   (DI)(DX*8), X2
	INCQ    R11
	CMPQ    R11, R9
	JB      shared

sharedDone:
	MULSD 8(SI), X2              // shared·us
	ADDSD X2, X0
	MOVSD X0, (AX)
	ADDQ  $8, AX
	ADDQ  $8, BX
	DECQ  CX
	JNZ   row

done:
	RET

// func sharedAdds8(grad *[256]float64, a *[8]float64, rec *[8]unsafe.Pointer, rows int)
TEXT ·sharedAdds8(SB), NOSPLIT, $0-32
	MOVQ grad+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ rec+16(FP), BX
	MOVQ rows+24(FP), CX
	TESTQ CX, CX
	JLE  done

row:
	RECORD
	MOVSD   (AX), X3             // r
	TESTQ   R8, R8
	JZ      ownDone

own:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   40(SI)(R11*8), X1
	MULSD   X3, X1               // r·v
	ADDSD   (DI)(DX*8), X1       // g[c] + r·v
	MOVSD   X1, (DI)(DX*8)
	INCQ    R11
	CMPQ    R11, R8
	JB      own

ownDone:
	MOVSD 8(SI), X4
	MULSD X3, X4                 // rs = r·shared
	CMPQ  R11, R9
	JAE   sharedDone

shared:
	MOVBQZX (R10)(R11*1), DX
	MOVSD   (DI)(DX*8), X1
	ADDSD   X4, X1               // g[c] + rs
	MOVSD   X1, (DI)(DX*8)
	INCQ    R11
	CMPQ    R11, R9
	JB      shared

sharedDone:
	ADDQ $8, AX
	ADDQ $8, BX
	DECQ CX
	JNZ  row

done:
	RET
