// Package heapfloor keeps Go's garbage collector from collecting a small
// heap over and over.
//
// The collector starts a cycle when the heap reaches the live heap (what
// the last cycle found reachable) times 1+GOGC/100. A server whose live
// heap is a few megabytes but that allocates tens of kilobytes a request
// then collects every few hundred requests, and each cycle costs its
// marking, its sweeping and the fresh memory the allocator must clear:
// on the comment gateway, a tenth of the CPU of a page request at a
// GOGC of 400.
//
// A floor gives the heap room to grow to at least Floor bytes between
// cycles, whatever the live heap, and keeps GOGC's proportional rule
// above it:
//
//	goal = max(Floor, live × (1 + Percent/100))
//
// Hold sets GOGC after every cycle, from the live heap that cycle
// measured (runtime/metrics "/gc/heap/live:bytes"), to the percent that
// gives that goal. A live heap that grows past Floor/(1+Percent/100) is
// collected at Percent, as without a floor; the heap never exceeds the
// larger of Floor and what Percent alone allows. The new percent applies
// from the cycle after the one that measured the heap, so a live heap that
// jumps within one cycle can overshoot the goal for that cycle.
//
// GOMEMLIMIT still rules: the collector works harder as the heap nears a
// limit, whatever GOGC says.
package heapfloor
