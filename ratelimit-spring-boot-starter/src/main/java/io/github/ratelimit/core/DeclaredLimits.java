package io.github.ratelimit.core;

import java.util.List;

/** Something that declares limits: the annotation support, the servlet filter. */
public interface DeclaredLimits {

    /** The limits declared so far; after startup, all of them. */
    List<DeclaredLimit> declaredLimits();
}
