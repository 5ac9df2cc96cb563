/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libloop exports.  It is built with -fvisibility=hidden, and every
 * room (crypto/ has its own internal header) marks its exports the same
 * way, so the two markers live here once.
 */
#ifndef LIBLOOP_EXPORT_H
#define LIBLOOP_EXPORT_H

/* the public API, version node LIBLOOP_1 in libloop.sym */
#define LIBLOOP_EXPORT __attribute__((visibility("default")))
/*
 * Exported for the project's own modules and programs only (version node
 * LIBLOOP_PRIVATE in libloop.sym): no header declares them to users.
 */
#define LIBLOOP_PRIVATE_EXPORT __attribute__((visibility("default")))

#endif
