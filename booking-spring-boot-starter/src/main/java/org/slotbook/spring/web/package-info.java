/**
 * Slotbook on the web: the HTTP status of every result ({@link org.slotbook.spring.web.SlotbookHttpStatus}),
 * and RFC 9457 problem details for Slotbook's exceptions ({@link org.slotbook.spring.web.SlotbookProblemDetails}),
 * registered in a servlet web application unless the application declares its own.
 */
@NullMarked
package org.slotbook.spring.web;

import org.jspecify.annotations.NullMarked;
