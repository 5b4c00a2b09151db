package io.engram.jobs.store;

import io.engram.jobs.serde.Layout;
import io.engram.jobs.serde.LayoutSerializer;
import io.engram.model.facts.Fact;
import io.engram.model.facts.Supersession.Link;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** A memory's {@link Fact} in the writer's keyed state. */
final class FactSerializer extends LayoutSerializer<Fact> {

    private static final long serialVersionUID = 1L;
    static final FactSerializer INSTANCE = new FactSerializer();

    @Override
    public void serialize(Fact f, DataOutputView out) throws IOException {
        for (String name : new String[] {f.id(), f.userId(), f.key()}) { // the user and the key may be absent
            Layout.writeString(name, out);
        }
        out.writeLong(f.ts());
        out.writeLong(f.start());
        writeLink(f.explicitBy(), out);
        writeLink(f.slotBy(), out);
        out.writeBoolean(f.present());
        out.writeBoolean(f.forgotten());
    }

    private static void writeLink(Link link, DataOutputView out) throws IOException {
        Layout.writeOptional(link, out, l -> {
            Layout.writeString(l.by(), out);
            out.writeLong(l.at());
        });
    }

    @Override
    public Fact deserialize(DataInputView in) throws IOException {
        return new Fact(Layout.readString(in), Layout.readString(in), Layout.readString(in), in.readLong(), in.readLong(),
                readLink(in), readLink(in), in.readBoolean(), in.readBoolean());
    }

    private static Link readLink(DataInputView in) throws IOException {
        return Layout.readOptional(in, () -> new Link(Layout.readString(in), in.readLong()));
    }
}
