/**
 * Internal helpers shared by Slotbook's modules (argument checks); not API, and may change in any
 * release without notice. The engine's own machinery is in
 * {@link org.slotbook.core.internal.engine}.
 */
@NullMarked
package org.slotbook.core.internal;

import org.jspecify.annotations.NullMarked;
