extension Array {
    /// Puts the first `count` elements in `areInIncreasingOrder` at the front, in order; the
    /// others follow in no particular order.
    ///
    /// A page of results needs its ten best of thousands in order, not the thousands:
    /// O(n log count) with a heap instead of O(n log n). The heap is then sorted in place
    /// (heapsort), which needs no memory besides the heap.
    mutating func sortPrefix(_ count: Int, by areInIncreasingOrder: (Element, Element) -> Bool) {
        guard count > 0, self.count > 1 else { return }
        let count = Swift.min(count, self.count)
        // A heap of the best `count` so far, the worst of them at the root.
        var heap = Array(self[..<count])
        var rest: [Element] = []
        rest.reserveCapacity(self.count - count)
        heap.withUnsafeMutableBufferPointer { heap in
            for index in stride(from: count / 2 - 1, through: 0, by: -1) {
                Self.siftDown(heap, from: index, end: count, by: areInIncreasingOrder)
            }
            for element in self[count...] {
                if areInIncreasingOrder(element, heap[0]) {
                    rest.append(heap[0])
                    heap[0] = element
                    Self.siftDown(heap, from: 0, end: count, by: areInIncreasingOrder)
                } else {
                    rest.append(element)
                }
            }
            // Heapsort: the root is the worst left, so moving it behind the heap each time leaves
            // the best first.
            for end in stride(from: count - 1, to: 0, by: -1) {
                heap.swapAt(0, end)
                Self.siftDown(heap, from: 0, end: end, by: areInIncreasingOrder)
            }
        }
        self = heap + rest
    }

    /// Restores the heap `heap[..<end]` (the worst at the root) below `start`.
    private static func siftDown(
        _ heap: UnsafeMutableBufferPointer<Element>, from start: Int, end: Int,
        by areInIncreasingOrder: (Element, Element) -> Bool
    ) {
        var parent = start
        while true {
            var worst = parent
            let left = 2 * parent + 1
            let right = left + 1
            if left < end, areInIncreasingOrder(heap[worst], heap[left]) { worst = left }
            if right < end, areInIncreasingOrder(heap[worst], heap[right]) { worst = right }
            if worst == parent { return }
            heap.swapAt(parent, worst)
            parent = worst
        }
    }
}
