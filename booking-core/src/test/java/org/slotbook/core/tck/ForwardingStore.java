package org.slotbook.core.tck;

import org.slotbook.core.spi.BookingStore;

/** A store that forwards every call to the one it wraps; fault-injection tests override the call they break. */
public class ForwardingStore extends org.slotbook.core.spi.ForwardingStore {
    protected final BookingStore delegate;

    public ForwardingStore(BookingStore delegate) {
        if (delegate == null) {
            throw new IllegalArgumentException("delegate must not be null");
        }
        this.delegate = delegate;
    }

    @Override
    protected BookingStore delegate() {
        return delegate;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
