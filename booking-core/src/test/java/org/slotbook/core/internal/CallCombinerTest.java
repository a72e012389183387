package org.slotbook.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.slotbook.core.StoreUnreachableException;

/** The combiner alone, over a sender that answers each call with its own argument. */
class CallCombinerTest {
    /** Answers each call with its first argument, after {@code pauseNanos}; records the batch sizes. */
    private static final class EchoSender implements CallCombiner.Sender<String, String> {
        final Queue<Integer> batches = new ConcurrentLinkedQueue<>();
        final AtomicInteger concurrent = new AtomicInteger();
        final AtomicInteger mostConcurrent = new AtomicInteger();
        final long pauseNanos;

        EchoSender(long pauseNanos) {
            this.pauseNanos = pauseNanos;
        }

        @Override
        public void send(CallCombiner.Call<String, String>[] calls, int count) {
            int now = concurrent.incrementAndGet();
            mostConcurrent.accumulateAndGet(now, Math::max);
            try {
                batches.add(count);
                if (pauseNanos > 0) {
                    LockSupport.parkNanos(pauseNanos);
                }
                for (int i = 0; i < count; i++) {
                    calls[i].complete(calls[i].request());
                }
            } finally {
                concurrent.decrementAndGet();
            }
        }
    }

    @Test
    void aLoneCallerSendsEachCallAtOnceInABatchOfItsOwn() {
        EchoSender sender = new EchoSender(0);
        CallCombiner combiner = new CallCombiner<>(sender, 2, 64);
        for (int i = 0; i < 100; i++) {
            assertThat(combiner.run("call-" + i)).isEqualTo("call-" + i);
        }
        assertThat(sender.batches).hasSize(100).containsOnly(1);
    }

    @Test
    void concurrentCallersShareBatchesAndEachGetsItsOwnReply() throws Exception {
        int threads = 48;
        int perThread = 200;
        EchoSender sender = new EchoSender(TimeUnit.MICROSECONDS.toNanos(200));
        CallCombiner combiner = new CallCombiner<>(sender, 2, 64);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    int right = 0;
                    for (int i = 0; i < perThread; i++) {
                        String arg = thread + ":" + i;
                        if (arg.equals(combiner.run(arg))) {
                            right++;
                        }
                    }
                    return right;
                }));
            }
            start.countDown();
            for (Future<Integer> result : results) {
                assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(perThread);
            }
        } finally {
            pool.shutdownNow();
        }
        int sent = sender.batches.stream().mapToInt(Integer::intValue).sum();
        assertThat(sent).isEqualTo(threads * perThread);
        assertThat(sender.batches).allMatch(n -> n >= 1 && n <= 64);
        // calls queued behind a batch on the wire went out together, and never more batches at once
        // than lanes
        assertThat(sender.batches.size()).isLessThan(threads * perThread / 4);
        assertThat(sender.mostConcurrent.get()).isBetween(1, 2);
    }

    @Test
    void aFailedBatchFailsEveryCallInItAndTheNextCallsGoThrough() throws Exception {
        RuntimeException down = new IllegalStateException("connection reset");
        AtomicInteger batch = new AtomicInteger();
        CallCombiner<String, String> combiner = new CallCombiner<>((calls, count) -> {
            if (batch.incrementAndGet() == 1) {
                throw down;
            }
            for (int i = 0; i < count; i++) {
                calls[i].complete("ok");
            }
        }, 1, 64);
        assertThatThrownBy(() -> combiner.run("a")).isSameAs(down);
        assertThat(combiner.run("b")).isEqualTo("ok");
    }

    @Test
    void aCallTheSenderLeavesUnansweredFailsInsteadOfWaitingForever() {
        CallCombiner<String, String> combiner = new CallCombiner<>((calls, count) -> { }, 1, 64);
        assertThatThrownBy(() -> combiner.run("a"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unanswered");
    }

    @Test
    void aCallFailedByItsSenderThrowsThatFailure() {
        RuntimeException script = new IllegalArgumentException("ERR script error");
        CallCombiner<String, String> combiner = new CallCombiner<>((calls, count) -> calls[0].fail(script), 1, 64);
        assertThatThrownBy(() -> combiner.run("a")).isSameAs(script);
    }

    @Test
    void anInterruptedCallerStillGetsItsReplyAndKeepsItsInterrupt() throws Exception {
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CallCombiner<String, String> combiner = new CallCombiner<>((calls, count) -> {
            if (inBatch.getCount() > 0) {
                inBatch.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            for (int i = 0; i < count; i++) {
                calls[i].complete(calls[i].request());
            }
        }, 1, 64);
        Thread leader = new Thread(() -> combiner.run("leader"));
        leader.start();
        assertThat(inBatch.await(10, TimeUnit.SECONDS)).isTrue();
        String[] reply = new String[1];
        boolean[] interrupted = new boolean[1];
        Thread follower = new Thread(() -> {
            reply[0] = combiner.run("follower");
            interrupted[0] = Thread.currentThread().isInterrupted();
        });
        follower.start();
        Thread.sleep(50);
        follower.interrupt();
        Thread.sleep(50);
        assertThat(follower.isAlive()).as("waits for its reply despite the interrupt").isTrue();
        release.countDown();
        follower.join(10_000);
        leader.join(10_000);
        assertThat(reply[0]).isEqualTo("follower");
        assertThat(interrupted[0]).isTrue();
    }

    /** A leader whose sender throws an Error still hands the lane to the callers queued behind it. */
    @Test
    void anErrorInABatchFailsItsCallsAndTheQueueBehindItIsStillServed() throws Exception {
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        CallCombiner<String, String> combiner = new CallCombiner<>((calls, count) -> {
            if (batches.incrementAndGet() == 1) {
                inBatch.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new StackOverflowError("sender broke");
            }
            for (int i = 0; i < count; i++) {
                calls[i].complete("ok");
            }
        }, 1, 64);
        Throwable[] leaderSaw = new Throwable[1];
        Thread leader = new Thread(() -> {
            try {
                combiner.run("leader");
            } catch (Throwable t) {
                leaderSaw[0] = t;
            }
        });
        leader.start();
        assertThat(inBatch.await(10, TimeUnit.SECONDS)).isTrue();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                queued.add(pool.submit(() -> combiner.run("queued")));
            }
            Thread.sleep(50);
            release.countDown();
            for (Future<String> f : queued) {
                assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
            }
        } finally {
            pool.shutdownNow();
        }
        leader.join(10_000);
        assertThat(leaderSaw[0]).isInstanceOf(StackOverflowError.class);
    }

    /**
     * A batch that could not reach its store fails the calls that queued behind it as well: they have
     * waited one pool timeout already, and leading a batch of their own would make them wait another.
     */
    @Test
    void aBatchThatFoundTheStoreUnreachableFailsTheCallsQueuedBehindIt() throws Exception {
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        CallCombiner<String, String> combiner = new CallCombiner<>((calls, count) -> {
            batches.incrementAndGet();
            inBatch.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (int i = 0; i < count; i++) {
                calls[i].fail(new StoreUnreachableException("no connection within the pool's timeout", null));
            }
        }, 1, 64);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            Future<String> leader = pool.submit(() -> combiner.run("leader"));
            assertThat(inBatch.await(10, TimeUnit.SECONDS)).isTrue();
            List<Future<String>> queued = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                queued.add(pool.submit(() -> combiner.run("queued")));
            }
            Thread.sleep(50);
            release.countDown();
            queued.add(leader);
            for (Future<String> f : queued) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(StoreUnreachableException.class);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(batches.get()).as("batches sent: the queued calls sent none of their own").isEqualTo(1);
    }

    @Test
    void noBatchCarriesMoreThanTheCombinersBatchSize() throws Exception {
        int threads = 24;
        EchoSender sender = new EchoSender(TimeUnit.MICROSECONDS.toNanos(300));
        CallCombiner<String, String> combiner = new CallCombiner<>(sender, 1, 4);
        assertThat(combiner.maxBatch()).isEqualTo(4);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<String>> replies = new ArrayList<>();
            for (int t = 0; t < threads * 20; t++) {
                String arg = "call-" + t;
                replies.add(pool.submit(() -> combiner.run(arg)));
            }
            for (int t = 0; t < replies.size(); t++) {
                assertThat(replies.get(t).get(60, TimeUnit.SECONDS)).isEqualTo("call-" + t);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(sender.batches).allMatch(n -> n >= 1 && n <= 4).anyMatch(n -> n > 1);
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new CallCombiner<String, String>((calls, count) -> { }, 0, 64))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lanes").hasMessageContaining("0");
        assertThatThrownBy(() -> new CallCombiner<String, String>((calls, count) -> { }, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBatch").hasMessageContaining("0");
    }
}
