package org.slotbook.redis.internal;

import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets concurrent threads share round trips: a caller queues its call on a lane, and whichever caller
 * holds the lane's lock sends every call queued there (up to {@link #MAX_BATCH}) as one batch, hands
 * each caller its own reply, and wakes the next caller in the queue to lead the following batch. A
 * caller alone on its lane sends its own call at once, so a single thread pays one uncontended lock
 * and no hand-off; under load, the calls of many threads travel in one write and come back in one
 * read, instead of one round trip per thread.
 *
 * <p>A caller waits for its reply without giving up on an interrupt (its call may already be on the
 * wire) and keeps its interrupt status. A batch that fails fails every call in it; a sender that
 * throws fails the calls it left unanswered.
 */
public final class CallCombiner {
    /** The most calls one batch sends. */
    public static final int MAX_BATCH = 64;
    /** How long a waiting caller sleeps at most before it looks at its call and the lane again. */
    private static final long RECHECK_NANOS = 10_000_000L;

    /** Sends a batch; must {@link Call#complete} or {@link Call#fail} each of {@code calls[0..count)}. */
    @FunctionalInterface
    public interface Sender {
        void send(Call[] calls, int count);
    }

    /** One queued call: a script, its keys and arguments, and, once answered, its reply or failure. */
    public static final class Call {
        private final LuaScript script;
        private final int keyCount;
        private final byte[][] keysAndArgs;
        private final Thread caller;
        private Object reply;
        private RuntimeException failure;
        private volatile boolean done;

        Call(LuaScript script, int keyCount, byte[][] keysAndArgs, Thread caller) {
            this.script = script;
            this.keyCount = keyCount;
            this.keysAndArgs = keysAndArgs;
            this.caller = caller;
        }

        public LuaScript script() {
            return script;
        }

        public int keyCount() {
            return keyCount;
        }

        public byte[][] keysAndArgs() {
            return keysAndArgs;
        }

        /** Answers the call with {@code reply}; the first answer counts. */
        public void complete(Object reply) {
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

        boolean done() {
            return done;
        }

        Object result() {
            if (failure != null) {
                throw failure;
            }
            return reply;
        }
    }

    private final Sender sender;
    private final Lane[] lanes;

    /**
     * @param lanes how many batches may be on the wire at once (each lane leads one at a time)
     */
    public CallCombiner(Sender sender, int lanes) {
        this.sender = Objects.requireNonNull(sender, "sender");
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be at least 1, got " + lanes);
        }
        this.lanes = new Lane[lanes];
        for (int i = 0; i < lanes; i++) {
            this.lanes[i] = new Lane();
        }
    }

    /** How many lanes this combiner has. */
    public int lanes() {
        return lanes.length;
    }

    /**
     * Sends the call, alone or in a batch with other threads' calls, and answers its reply.
     *
     * @throws RuntimeException what the sender failed the call with
     */
    public Object run(LuaScript script, int keyCount, byte[]... keysAndArgs) {
        Thread self = Thread.currentThread();
        Call call = new Call(script, keyCount, keysAndArgs, self);
        @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() is the same number
        long id = self.getId();
        Lane lane = lanes[(int) Math.floorMod(id, (long) lanes.length)];
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
                    Call next = lane.queue.peek();
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

    private static final class Lane {
        final ReentrantLock lock = new ReentrantLock();
        final ConcurrentLinkedQueue<Call> queue = new ConcurrentLinkedQueue<>();
        /** Only touched by the lock's holder. */
        final Call[] batch = new Call[MAX_BATCH];

        /** Sends what is queued, up to one batch; every call taken is answered and its caller woken. */
        void sendQueued(Sender sender, Thread leader) {
            int count = 0;
            Call queued;
            while (count < MAX_BATCH && (queued = queue.poll()) != null) {
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
            wake(count, leader);
        }

        private void wake(int count, Thread leader) {
            for (int i = 0; i < count; i++) {
                Call call = batch[i];
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
