package io.engram.jobs.serde;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A Flink serializer of an immutable value with a hand-written binary layout: Flink's boilerplate in one place,
 * so each typed seam (an operator's output, a keyed state) writes only its layout. Immutable values need no
 * copies. A subclass has a no-argument constructor (its snapshot restores it by class) and raises
 * {@link #layoutVersion} whenever its layout changes, so a savepoint says which layout its state was written in.
 */
public abstract class LayoutSerializer<T> extends TypeSerializer<T> {

    private static final long serialVersionUID = 1L;

    /** The version of {@link #serialize}'s layout; a savepoint of another version is not read as this one. */
    protected int layoutVersion() {
        return 1;
    }

    /**
     * A serializer reading layout {@code version}, an earlier one than {@link #layoutVersion}'s, so a savepoint in
     * that layout is migrated; null when this serializer cannot read it (the savepoint is refused).
     */
    protected LayoutSerializer<T> readingLayout(int version) {
        return null;
    }

    @Override
    public final boolean isImmutableType() {
        return true;
    }

    @Override
    public final TypeSerializer<T> duplicate() {
        return this;
    }

    @Override
    public final T createInstance() {
        return null;
    }

    @Override
    public final T copy(T from) {
        return from;
    }

    @Override
    public final T copy(T from, T reuse) {
        return from;
    }

    @Override
    public final int getLength() {
        return -1;
    }

    @Override
    public final T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public final void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public final TypeSerializerSnapshot<T> snapshotConfiguration() {
        return new LayoutSnapshot<>(this);
    }

    @Override
    public final boolean equals(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }

    @Override
    public final int hashCode() {
        return getClass().hashCode();
    }
}
