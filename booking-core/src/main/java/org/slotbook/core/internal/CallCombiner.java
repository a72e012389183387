package org.slotbook.core.internal;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.StoreUnreachableException;

/**
 * Lets concurrent threads share round trips: a caller queues its request on a lane, and whichever
 * caller holds the lane's lock sends every request queued there (up to the combiner's batch size) as
 * one batch, hands each caller its own reply, and wakes the next caller in the queue to lead the
 * following batch. A caller alone on its lane sends its own request at once, so a single thread pays
 * one uncontended lock and no hand-off; under load, the requests of many threads travel together,
 * instead of one round trip per thread. At most one batch per lane is in flight, so the lanes also
 * bound how many connections the callers keep busy at once.
 *
 * <p>A caller waits for its reply without giving up on an interrupt (its request may already be on
 * the wire) and keeps its interrupt status. A batch that fails fails every request in it; a sender
 * that throws fails the requests it left unanswered.
 *
 * <p>A batch that fails because its store could not be reached ({@link StoreUnreachableException}: no
 * connection within the pool's timeout) also fails, at once and with the same kind of exception, every
 * request that queued on the lane while it waited: those callers have already waited up to a pool
 * timeout behind it, and leading a batch of their own would make them wait a second one. So no caller
 * waits longer than one pool timeout for an unreachable store.
 *
 * @param <Q> a request
 * @param <R> its reply
 */
public final class CallCombiner<Q, R> {
    /** How long a waiting caller sleeps at most before it looks at its request and the lane again. */
    private static final long RECHECK_NANOS = 10_000_000L;

    /** Sends a batch; must {@link Call#complete} or {@link Call#fail} each of {@code calls[0..count)}. */
    @FunctionalInterface
    public interface Sender<Q, R> {
        void send(Call<Q, R>[] calls, int count);
    }

    /** One queued request and, once answered, its reply or failure. */
    public static final class Call<Q, R> {
        private final Q request;
        private final Thread caller;
        private @Nullable R reply;
        private @Nullable RuntimeException failure;
        private volatile boolean done;

        Call(Q request, Thread caller) {
            this.request = request;
            this.caller = caller;
        }

        public Q request() {
            return request;
        }

        /** Answers the call with {@code reply}; the first answer counts. */
        public void complete(@Nullable R reply) {
            if (!done) {
                this.reply = reply;
                done = true;
            }
        }

        /** Answers the call with {@code failure}, which its caller throws; the first answer counts. */
        public void fail(RuntimeException failure) {
            if (!done) {
                this.failure = Objects.requireNonNull(failure, "failure");
                done = true;
            }
        }

        public boolean done() {
            return done;
        }

        @Nullable R result() {
            if (failure != null) {
                throw failure;
            }
            return reply;
        }
    }

    private final Sender<Q, R> sender;
    private final Lane<Q, R>[] lanes;
    private final int maxBatch;

    /**
     * @param lanes    how many batches may be in flight at once (each lane leads one at a time)
     * @param maxBatch the most requests one batch sends
     */
    @SuppressWarnings("unchecked")
    public CallCombiner(Sender<Q, R> sender, int lanes, int maxBatch) {
        this.sender = Objects.requireNonNull(sender, "sender");
        if (lanes < 1) {
            throw new InvalidInputException("lanes must be at least 1, got " + lanes);
        }
        if (maxBatch < 1) {
            throw new InvalidInputException("maxBatch must be at least 1, got " + maxBatch);
        }
        this.maxBatch = maxBatch;
        this.lanes = new Lane[lanes];
        for (int i = 0; i < lanes; i++) {
            this.lanes[i] = new Lane<>(maxBatch);
        }
    }

    /** How many lanes this combiner has. */
    public int lanes() {
        return lanes.length;
    }

    /** The most requests one batch sends. */
    public int maxBatch() {
        return maxBatch;
    }

    /**
     * Sends the request, alone or in a batch with other threads' requests, and answers its reply.
     *
     * @throws RuntimeException what the sender failed the request with
     */
    public @Nullable R run(Q request) {
        Thread self = Thread.currentThread();
        Call<Q, R> call = new Call<>(request, self);
        @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() is the same number
        long id = self.getId();
        Lane<Q, R> lane = lanes[(int) Math.floorMod(id, (long) lanes.length)];
        lane.queue.add(call);
        boolean interrupted = false;
        while (!call.done()) {
            if (lane.lock.tryLock()) {
                try {
                    if (!call.done()) {
                        lane.sendQueued(sender, self);
                    }
                } finally {
                    lane.lock.unlock();
                    // whoever is first in the queue now leads the next batch
                    Call<Q, R> next = lane.queue.peek();
                    if (next != null && next.caller != self) {
                        LockSupport.unpark(next.caller);
                    }
                }
            } else {
                // woken by the leader that answers this call or hands over the lane; the timeout only
                // bounds how long a lost wake-up could keep a caller waiting
                LockSupport.parkNanos(lane, RECHECK_NANOS);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            self.interrupt();
        }
        return call.result();
    }

    private static final class Lane<Q, R> {
        final ReentrantLock lock = new ReentrantLock();
        final ConcurrentLinkedQueue<Call<Q, R>> queue = new ConcurrentLinkedQueue<>();
        /** Only touched by the lock's holder. */
        final Call<Q, R>[] batch;

        @SuppressWarnings("unchecked")
        Lane(int maxBatch) {
            this.batch = new Call[maxBatch];
        }

        /** Sends what is queued, up to one batch; every call taken is answered and its caller woken. */
        void sendQueued(Sender<Q, R> sender, Thread leader) {
            int count = 0;
            Call<Q, R> queued;
            while (count < batch.length && (queued = queue.poll()) != null) {
                batch[count++] = queued;
            }
            if (count == 0) {
                return;
            }
            try {
                sender.send(batch, count);
            } catch (RuntimeException | Error e) {
                RuntimeException failure = e instanceof RuntimeException runtime ? runtime
                        : new IllegalStateException("the batch failed: " + e, e);
                for (int i = 0; i < count; i++) {
                    batch[i].fail(failure);
                }
                if (e instanceof Error error) {
                    wake(count, leader);
                    throw error;
                }
            }
            StoreUnreachableException unreachable = unreachable(count);
            wake(count, leader);
            if (unreachable != null) {
                failQueued(unreachable);
            }
        }

        /** The failure of a call of the batch that could not reach its store, or null. */
        private @Nullable StoreUnreachableException unreachable(int count) {
            for (int i = 0; i < count; i++) {
                if (batch[i].failure instanceof StoreUnreachableException failure) {
                    return failure;
                }
            }
            return null;
        }

        /** Fails every call queued now (they waited behind a batch that found the store unreachable). */
        private void failQueued(StoreUnreachableException cause) {
            Call<Q, R> queued;
            while ((queued = queue.poll()) != null) {
                queued.fail(new StoreUnreachableException(cause.getMessage(), cause));
                LockSupport.unpark(queued.caller);
            }
        }

        private void wake(int count, Thread leader) {
            for (int i = 0; i < count; i++) {
                Call<Q, R> call = batch[i];
                batch[i] = null;
                if (!call.done()) {
                    call.fail(new IllegalStateException("the batch sender left a call unanswered"));
                }
                if (call.caller != leader) {
                    LockSupport.unpark(call.caller);
                }
            }
        }
    }
}
