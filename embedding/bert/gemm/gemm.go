// Package gemm multiplies float32 matrices: C += A·B with A row-major and B
// packed once into panels of NR columns, so that a register-blocked
// micro-kernel (MR×NR outputs held in registers) streams through it. The
// micro-kernel is Go assembly on amd64 (AVX2 and FMA) and arm64 (NEON),
// with a pure-Go fallback used elsewhere, when the CPU lacks the
// instructions, or when built with the purego tag.
package gemm

import (
	"runtime"
	"sync"
)

const (
	// maxMR bounds the rows of A one micro-kernel call covers (mr: 6 for
	// the AVX2, NEON and Go kernels, 12 for AVX-512).
	maxMR = 12
	goMR  = 6
	// NR is the number of columns of B in a panel for the AVX2, NEON and
	// Go kernels; the AVX-512 kernel takes panels of maxNR.
	NR    = 16
	maxNR = 32
)

// Packed is a K×N matrix B stored as ceil(N/NR) panels; panel p holds, for
// each k, the NR values B[k][p*NR : p*NR+NR] (zero past N).
type Packed struct {
	K, N int
	// W is the panel width: NR, or maxNR for the AVX-512 kernel.
	W    int
	Data []float32
}

func (p *Packed) panels() int { return (p.N + p.W - 1) / p.W }

// resize makes p (allocated when nil) hold a packed K×N matrix, reusing its
// buffer when large enough, and returns it.
func (p *Packed) resize(k, n int) *Packed {
	if p == nil {
		p = &Packed{}
	}
	p.K, p.N, p.W = k, n, panelWidth
	size := p.panels() * p.W * k
	if cap(p.Data) < size {
		p.Data = make([]float32, size)
	}
	p.Data = p.Data[:size]
	return p
}

// packPanels resizes dst (allocated when nil) to a packed K×N matrix and calls
// fill with each panel and the column of B where the panel starts; fill writes
// all nr·k values of the panel. It returns dst.
func packPanels(dst *Packed, k, n int, fill func(panel []float32, c0, nr int)) *Packed {
	dst = dst.resize(k, n)
	nr := dst.W
	for p := 0; p < dst.panels(); p++ {
		fill(dst.Data[p*nr*k:(p+1)*nr*k], p*nr, nr)
	}
	return dst
}

// PackT packs B = Wᵀ where W is N×K row-major (a linear layer's weight,
// out×in, as PyTorch stores it). dst is reused when large enough.
func PackT(dst *Packed, w []float32, n, k, ldw int) *Packed {
	return packPanels(dst, k, n, func(panel []float32, c0, nr int) {
		for j := 0; j < nr; j++ {
			col := c0 + j
			if col >= n {
				for kk := 0; kk < k; kk++ {
					panel[kk*nr+j] = 0
				}
				continue
			}
			row := w[col*ldw : col*ldw+k]
			for kk, v := range row {
				panel[kk*nr+j] = v
			}
		}
	})
}

// Pack packs B, K×N row-major with leading dimension ldb.
func Pack(dst *Packed, b []float32, k, n, ldb int) *Packed {
	return packPanels(dst, k, n, func(panel []float32, c0, nr int) {
		w := min(nr, n-c0)
		for kk := 0; kk < k; kk++ {
			dstRow := panel[kk*nr : kk*nr+nr]
			copy(dstRow, b[kk*ldb+c0:kk*ldb+c0+w])
			for j := w; j < nr; j++ {
				dstRow[j] = 0
			}
		}
	})
}

// MulAdd computes C[m×N] += A[m×K]·B for a packed B; lda and ldc are the
// leading dimensions of A and C. It runs on the calling goroutine.
func MulAdd(c []float32, ldc int, a []float32, lda, m int, b *Packed) {
	mulAddPanels(c, ldc, a, lda, m, b, 0, b.panels())
}

// MulAddParallel is MulAdd split by panels over up to workers goroutines
// (workers <= 0 means GOMAXPROCS).
func MulAddParallel(c []float32, ldc int, a []float32, lda, m int, b *Packed, workers int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	np := b.panels()
	if workers > np {
		workers = np
	}
	// Small products are not worth a goroutine.
	if workers <= 1 || m*b.K*b.N < 1<<17 {
		mulAddPanels(c, ldc, a, lda, m, b, 0, np)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		p0, p1 := np*w/workers, np*(w+1)/workers
		if w == workers-1 {
			mulAddPanels(c, ldc, a, lda, m, b, p0, p1)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mulAddPanels(c, ldc, a, lda, m, b, p0, p1)
		}()
	}
	wg.Wait()
}

// Cache blocking: a kc-deep slice of a panel (kc×NR floats, 16 KiB) stays in
// L1, an mc×kc block of A (192 KiB) in L2 while the kernel sweeps the
// panels, and the mc rows of C being summed stay in L2 across the k blocks.
const (
	kc = 384
	mc = 192
)

func mulAddPanels(c []float32, ldc int, a []float32, lda, m int, b *Packed, p0, p1 int) {
	k := b.K
	if m == 0 || k == 0 || p0 >= p1 {
		return
	}
	var tmpC [maxMR * maxNR]float32
	mr, nr := mr, b.W
	full := m / mr * mr
	rest := m - full
	var tail []float32 // the last rest rows of A, zero padded to mr rows
	if rest > 0 {
		bp := tailPool.Get().(*[]float32)
		defer tailPool.Put(bp)
		if cap(*bp) < mr*k {
			*bp = make([]float32, mr*k)
		}
		tail = (*bp)[:mr*k]
		clear(tail)
		for r := 0; r < rest; r++ {
			copy(tail[r*k:(r+1)*k], a[(full+r)*lda:(full+r)*lda+k])
		}
	}
	for i0 := 0; i0 < m; i0 += mc {
		i1 := min(i0+mc, full)
		for k0 := 0; k0 < k; k0 += kc {
			kn := min(kc, k-k0)
			for p := p0; p < p1; p++ {
				panel := b.Data[p*nr*k+k0*nr : p*nr*k+(k0+kn)*nr]
				c0 := p * nr
				w := min(nr, b.N-c0)
				for i := i0; i < i1; i += mr {
					if w == nr {
						kernel(kn, a[i*lda+k0:], lda, panel, c[i*ldc+c0:], ldc)
						continue
					}
					for r := 0; r < mr; r++ {
						copy(tmpC[r*nr:r*nr+w], c[(i+r)*ldc+c0:(i+r)*ldc+c0+w])
					}
					kernel(kn, a[i*lda+k0:], lda, panel, tmpC[:nr*maxMR], nr)
					for r := 0; r < mr; r++ {
						copy(c[(i+r)*ldc+c0:(i+r)*ldc+c0+w], tmpC[r*nr:r*nr+w])
					}
				}
				if rest > 0 && i0+mc >= m {
					clear(tmpC[:])
					for r := 0; r < rest; r++ {
						copy(tmpC[r*nr:r*nr+w], c[(full+r)*ldc+c0:(full+r)*ldc+c0+w])
					}
					kernel(kn, tail[k0:], k, panel, tmpC[:nr*maxMR], nr)
					for r := 0; r < rest; r++ {
						copy(c[(full+r)*ldc+c0:(full+r)*ldc+c0+w], tmpC[r*nr:r*nr+w])
					}
				}
			}
		}
	}
}

var tailPool = sync.Pool{New: func() any { return new([]float32) }}

// kernelGo is the portable micro-kernel: C[6×NR] (leading dimension ldc)
// += A[6×k] (leading dimension lda) · panel[k×NR].
func kernelGo(k int, a []float32, lda int, panel []float32, c []float32, ldc int) {
	var acc [goMR][NR]float32
	_ = a[(goMR-1)*lda+k-1]
	_ = panel[k*NR-1]
	for kk := 0; kk < k; kk++ {
		bv := (*[NR]float32)(panel[kk*NR : kk*NR+NR])
		for r := 0; r < goMR; r++ {
			av := a[r*lda+kk]
			row := &acc[r]
			for j := 0; j < NR; j++ {
				row[j] += av * bv[j]
			}
		}
	}
	for r := 0; r < goMR; r++ {
		row := c[r*ldc : r*ldc+NR]
		for j := range row {
			row[j] += acc[r][j]
		}
	}
}
