// Package diff compares texts line by line, with Myers' O(ND) algorithm in
// linear space, and prints the differences as a unified diff. The rpcgen
// command's --check and the generator's golden tests both use it.
package diff

// Edits are the result of comparing two sequences of lines: which lines of
// the old text are deleted and which lines of the new text are inserted.
// Every other line is common to both, in order.
type edits struct {
	deleted, inserted []bool
}

// maxCost bounds the edit distance one middle-snake search looks for
// before it settles for a good split instead of the best one: beyond it,
// two texts that have little in common get a correct but longer diff in
// O((N+M)·maxCost) time rather than a minimal one in O((N+M)·D).
var maxCost = 1 << 12

// compare finds a shortest edit script from a to b, both given as line
// numbers (equal lines have equal numbers). It keeps two vectors of
// len(a)+len(b) integers and the result's two flag slices: memory linear in
// the input, whatever the number of differences.
func compare(a, b []int32) edits {
	e := edits{deleted: make([]bool, len(a)), inserted: make([]bool, len(b))}
	// A line found on one side only is an edit in every script; leaving
	// such lines out before the search changes no shortest script, and
	// makes two texts that share little cheap to compare.
	inB := map[int32]bool{}
	for _, l := range b {
		inB[l] = true
	}
	inA := map[int32]bool{}
	for _, l := range a {
		inA[l] = true
	}
	var sa, sb []int32 // the lines found on both sides
	var ia, ib []int   // where they are in a and b
	for i, l := range a {
		if inB[l] {
			sa, ia = append(sa, l), append(ia, i)
		} else {
			e.deleted[i] = true
		}
	}
	for j, l := range b {
		if inA[l] {
			sb, ib = append(sb, l), append(ib, j)
		} else {
			e.inserted[j] = true
		}
	}
	n := len(sa) + len(sb) + 2
	se := edits{deleted: make([]bool, len(sa)), inserted: make([]bool, len(sb))}
	d := &differ{a: sa, b: sb, e: se, vf: make([]int, 2*n+1), vb: make([]int, 2*n+1)}
	d.compare(0, len(sa), 0, len(sb))
	for i, del := range se.deleted {
		e.deleted[ia[i]] = del
	}
	for j, ins := range se.inserted {
		e.inserted[ib[j]] = ins
	}
	return e
}

type differ struct {
	a, b   []int32
	e      edits
	vf, vb []int // furthest reaching x per diagonal, forward and backward
}

// compare marks the edits between a[aLo:aHi] and b[bLo:bHi].
func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for {
		for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
			aLo, bLo = aLo+1, bLo+1
		}
		for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
			aHi, bHi = aHi-1, bHi-1
		}
		switch {
		case aLo == aHi:
			for j := bLo; j < bHi; j++ {
				d.e.inserted[j] = true
			}
			return
		case bLo == bHi:
			for i := aLo; i < aHi; i++ {
				d.e.deleted[i] = true
			}
			return
		}
		x0, y0, x1, y1 := d.middleSnake(aLo, aHi, bLo, bHi)
		// Recurse into the smaller side and loop on the other, so the
		// stack stays shallow.
		if (x0-aLo)+(y0-bLo) < (aHi-x1)+(bHi-y1) {
			d.compare(aLo, x0, bLo, y0)
			aLo, bLo = x1, y1
		} else {
			d.compare(x1, aHi, y1, bHi)
			aHi, bHi = x0, y0
		}
	}
}

// middleSnake returns the start (x0, y0) and end (x1, y1) of the middle
// snake of a shortest path from (aLo, bLo) to (aHi, bHi): a run of equal
// lines that such a path takes halfway through its edits. The ranges'
// first lines differ and so do their last lines, and both are non-empty,
// so the split it gives leaves two strictly smaller problems.
//
// vf[off+k] is the furthest x a forward path of the current cost reaches on
// diagonal k = x - y, from the top left; vb[off+k] the same for a backward
// path from the bottom right, on the reversed ranges, where diagonal k is
// delta-k in forward terms. A diagonal no path of that cost reaches inside
// the box holds unreached.
func (d *differ) middleSnake(aLo, aHi, bLo, bHi int) (x0, y0, x1, y1 int) {
	a, b := d.a[aLo:aHi], d.b[bLo:bHi]
	n, m := len(a), len(b)
	delta := n - m
	odd := delta&1 != 0
	half := (n + m + 1) / 2
	off := half + 1
	vf, vb := d.vf[:2*off+1], d.vb[:2*off+1]
	for cost := 0; cost <= half; cost++ {
		if cost > maxCost {
			x, y := furthest(vf, off, cost-1, m)
			return aLo + x, bLo + y, aLo + x, bLo + y
		}
		for k := -cost; k <= cost; k += 2 {
			x := step(vf, off, k, cost, n, m)
			vf[off+k] = x
			if x == unreached {
				continue
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			// The backward paths of cost-1 edits: diagonals -(cost-1)..cost-1.
			if kb := delta - k; odd && kb >= -(cost-1) && kb <= cost-1 && vb[off+kb] != unreached && x+vb[off+kb] >= n {
				return aLo + sx, bLo + sy, aLo + x, bLo + y
			}
		}
		for kb := -cost; kb <= cost; kb += 2 {
			x := step(vb, off, kb, cost, n, m)
			vb[off+kb] = x
			if x == unreached {
				continue
			}
			y := x - kb
			sx, sy := x, y
			for x < n && y < m && a[n-1-x] == b[m-1-y] {
				x, y = x+1, y+1
			}
			vb[off+kb] = x
			if k := delta - kb; !odd && k >= -cost && k <= cost && vf[off+k] != unreached && x+vf[off+k] >= n {
				return aLo + n - x, bLo + m - y, aLo + n - sx, bLo + m - sy
			}
		}
	}
	panic("diff: no middle snake") // a path of at most n+m edits always exists
}

// unreached marks a diagonal that no path of the current cost reaches
// inside the box.
const unreached = -1

// step returns where a path of cost edits starts its snake on diagonal k:
// one edit past the furthest point of cost-1 edits on a neighbouring
// diagonal, down (an insertion) from k+1 or right (a deletion) from k-1,
// whichever stays in the n×m box and gets further; unreached if neither.
func step(v []int, off, k, cost, n, m int) int {
	if cost == 0 {
		return 0
	}
	x := unreached
	if k+1 <= cost-1 { // down from k+1
		if xd := v[off+k+1]; xd != unreached && xd-k <= m {
			x = xd
		}
	}
	if k-1 >= -(cost - 1) { // right from k-1
		if xr := v[off+k-1]; xr != unreached && xr+1 <= n && xr+1 > x {
			x = xr + 1
		}
	}
	return x
}

// furthest returns the point the forward paths of cost edits reached
// furthest along, for a split when the search gives up: it lies past the
// start and before the end, so both sides of it are smaller problems.
func furthest(vf []int, off, cost, m int) (int, int) {
	bx, by := 0, 0
	for k := -cost; k <= cost; k += 2 {
		x := vf[off+k]
		if x == unreached || x-k > m {
			continue
		}
		if x+x-k > bx+by {
			bx, by = x, x-k
		}
	}
	return bx, by
}
