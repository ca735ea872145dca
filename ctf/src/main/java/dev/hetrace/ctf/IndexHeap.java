package dev.hetrace.ctf;

/**
 * A binary min-heap of small integer ids (streams or traces in a merge) under an order the
 * owner defines, without boxing: the one heap behind every merge of streams, here and in the
 * modules that merge traces by their own clocks.
 */
public final class IndexHeap {
    /** The strict order of ids (a total order: ties broken by the owner). */
    public interface Order {
        boolean less(int a, int b);
    }

    private final int[] heap;
    private final Order order;
    private final long[] keys;
    private int size;

    public IndexHeap(int capacity, Order order) {
        this.heap = new int[capacity];
        this.order = order;
        this.keys = null;
    }

    /**
     * A heap ordered by {@code keys[id]}, then by id (the usual merge of sources by time, the one
     * given first first at equal times), compared inline rather than through an {@link Order}.
     */
    public IndexHeap(int capacity, long[] keys) {
        this.heap = new int[capacity];
        this.order = null;
        this.keys = keys;
    }

    private boolean less(int a, int b) {
        if (keys != null) {
            return before(a, keys[a], b);
        }
        return order.less(a, b);
    }

    /**
     * Whether {@code id}, were its key {@code key}, would come before {@code other} (a heap ordered
     * by keys: the lesser key, then the lesser id): lets a consumer follow a run of the top's
     * items while they stay before {@link #peekSecond()}.
     */
    public boolean before(int id, long key, int other) {
        return precedes(id, key, other, keys[other]);
    }

    /** The keyed heap's order: the lesser key, then the lesser id. */
    private static boolean precedes(int a, long keyA, int b, long keyB) {
        return keyA < keyB || (keyA == keyB && a < b);
    }

    public int size() {
        return size;
    }

    public void clear() {
        size = 0;
    }

    public void push(int id) {
        int k = size++;
        heap[k] = id;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (!less(heap[k], heap[parent])) {
                break;
            }
            swap(k, parent);
            k = parent;
        }
    }

    /** The least id, left in place; the heap must not be empty. */
    public int peek() {
        return heap[0];
    }

    /** Removes and returns the least id; the heap must not be empty. */
    /**
     * The item that comes next once the top is taken or moves back: the lesser child of the top,
     * or -1 when the top is alone. Lets a consumer follow a run of the top's items while they
     * stay before that one, without reordering the heap for each.
     */
    public int peekSecond() {
        if (size < 2) {
            return -1;
        }
        if (size == 2 || less(heap[1], heap[2])) {
            return heap[1];
        }
        return heap[2];
    }

    public int pop() {
        int top = heap[0];
        heap[0] = heap[--size];
        siftDown();
        return top;
    }

    /** Restores the order after the least id's key grew (it moved on): cheaper than pop then push. */
    public void topChanged() {
        siftDown();
    }

    private void siftDown() {
        if (keys != null) {
            siftDownByKeys();
            return;
        }
        int k = 0;
        while (true) {
            int l = 2 * k + 1;
            int r = l + 1;
            int m = k;
            if (l < size && less(heap[l], heap[m])) {
                m = l;
            }
            if (r < size && less(heap[r], heap[m])) {
                m = r;
            }
            if (m == k) {
                return;
            }
            swap(k, m);
            k = m;
        }
    }

    /**
     * {@link #siftDown} of a heap ordered by keys: the top's id and key held while the lesser
     * child moves up into the hole, level by level, and written once where it stops.
     */
    private void siftDownByKeys() {
        int[] h = heap;
        long[] kk = keys;
        int n = size;
        if (n == 0) {
            return;
        }
        int id = h[0];
        long key = kk[id];
        int k = 0;
        while (true) {
            int c = 2 * k + 1;
            if (c >= n) {
                break;
            }
            int child = h[c];
            long childKey = kk[child];
            if (c + 1 < n) {
                int right = h[c + 1];
                long rightKey = kk[right];
                if (precedes(right, rightKey, child, childKey)) {
                    c++;
                    child = right;
                    childKey = rightKey;
                }
            }
            if (precedes(id, key, child, childKey)) {
                break;
            }
            h[k] = child;
            k = c;
        }
        h[k] = id;
    }

    private void swap(int a, int b) {
        int tmp = heap[a];
        heap[a] = heap[b];
        heap[b] = tmp;
    }
}
