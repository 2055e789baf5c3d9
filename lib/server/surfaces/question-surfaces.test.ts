import { describe, expect, it } from "vitest";
import type { Question } from "../../protocol/question";
import { DomainEvents } from "../events";
import { createQuestionSurfaces, type QuestionSurface } from "./question-surfaces";

const question = (id: string) => ({ id, sessionId: "s", runId: "r" }) as Question;

/** A surface that writes down what it heard. */
function recorder(name: string, heard: string[]): QuestionSurface {
  return {
    deliver: (q) => heard.push(`${name} deliver ${q.id}`),
    escalate: (q, to) => heard.push(`${name} escalate ${q.id} ${to.join("+")}`),
    update: (q) => heard.push(`${name} update ${q.id}`),
    retract: (q) => heard.push(`${name} retract ${q.id}`),
  };
}

describe("the question surfaces' registry", () => {
  it("tells every attached surface each question's news, the tabs' sockets first whatever the order they attached in", () => {
    const events = new DomainEvents();
    const surfaces = createQuestionSurfaces(events);
    const heard: string[] = [];
    surfaces.attach("channel", recorder("channel", heard));
    surfaces.attach("push", recorder("push", heard));
    surfaces.attach("sockets", recorder("sockets", heard));
    events.emit("question.asked", question("q1"));
    events.emit("question.escalated", question("q1"), ["ana", "bo"]);
    events.emit("question.updated", question("q1"));
    events.emit("question.closed", question("q1"));
    expect(heard).toEqual([
      "sockets deliver q1",
      "push deliver q1",
      "channel deliver q1",
      "sockets escalate q1 ana+bo",
      "push escalate q1 ana+bo",
      "channel escalate q1 ana+bo",
      "sockets update q1",
      "push update q1",
      "channel update q1",
      "sockets retract q1",
      "push retract q1",
      "channel retract q1",
    ]);
    expect(surfaces.attached()).toEqual(["sockets", "push", "channel"]);
  });

  it("a surface that throws keeps the news from none of the others", () => {
    const events = new DomainEvents();
    const surfaces = createQuestionSurfaces(events);
    const heard: string[] = [];
    surfaces.attach("sockets", {
      deliver: () => {
        throw new Error("a broken tab");
      },
      retract: () => {},
    });
    surfaces.attach("webhooks", recorder("webhooks", heard));
    events.emit("question.asked", question("q1"));
    expect(heard).toEqual(["webhooks deliver q1"]);
  });

  it("one surface of a name: a second is refused; one detached hears nothing more, and its name is free again", () => {
    const events = new DomainEvents();
    const surfaces = createQuestionSurfaces(events);
    const heard: string[] = [];
    const detach = surfaces.attach("sockets", recorder("first", heard));
    expect(() => surfaces.attach("sockets", recorder("second", heard))).toThrow("the sockets surface is attached already");
    detach();
    events.emit("question.asked", question("q1"));
    expect(heard).toEqual([]);
    surfaces.attach("sockets", recorder("second", heard));
    // The first's detach, called again, leaves the second attached.
    detach();
    events.emit("question.closed", question("q1"));
    expect(heard).toEqual(["second retract q1"]);
  });

  it("attaches the domain's surfaces from one table, and hears nothing once closed", () => {
    const events = new DomainEvents();
    const surfaces = createQuestionSurfaces(events);
    const heard: string[] = [];
    surfaces.attachAll({ push: recorder("push", heard), slack: null, email: null, webhooks: recorder("webhooks", heard), asks: recorder("asks", heard), channel: recorder("channel", heard) });
    // Slack and email are not set up here: nothing is attached for them.
    expect(surfaces.attached()).toEqual(["push", "webhooks", "asks", "channel"]);
    surfaces.close();
    events.emit("question.asked", question("q1"));
    expect(heard).toEqual([]);
    expect(events.listenerCount("question.asked")).toBe(0);
  });
});
