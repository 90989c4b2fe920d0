/** Implementation details shared between the API and the stores. Not API: may change freely. */
package dev.archlab.inbox.internal;
