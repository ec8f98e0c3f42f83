import Testing
import WardenCore
import WardenScenario
import WardenSimulator

@Suite struct SimulatedAppTests {
    private func at(_ seconds: Int64) -> Instant { Instant(sinceOrigin: .seconds(seconds)) }

    private let fetch = AppMessage.fetchStart(window: .seconds(30))

    /// A process runs its code `launch_time` after its spawn; `"never"` runs none.
    @Test func processRunsLaunchTimeAfterItsSpawn() {
        var mail = SimulatedApp(name: "mail", facts: AppFacts(launchTime: .seconds(2)))
        let run = mail.spawned(1, readiness: .immediate, at: at(10))
        #expect(run == [SimulatedApp.Doing(time: at(12), launch: 1, kind: .run)])
        #expect(mail.launch == 1)
        #expect(!mail.runsCode)

        var stuck = SimulatedApp(name: "stuck", facts: AppFacts(launchTime: nil))
        #expect(stuck.spawned(1, readiness: .immediate, at: at(10)).isEmpty)
        #expect(stuck.receive(fetch, at: at(11), stalledFor: .zero).isEmpty)
        #expect(stuck.answerHeldMessages(at: at(100), stalledFor: .zero).isEmpty)
    }

    /// A notify app calls `ready` as its process begins to run; an immediate app makes no call.
    @Test func notifyAppCallsReadyAsItBeginsToRun() {
        var editor = SimulatedApp(name: "editor", facts: AppFacts())
        let run = editor.spawned(3, readiness: .notify, at: at(0))
        #expect(run.map(\.time) == [at(0)])
        #expect(editor.beginsToRun(run[0]) == [.ready(app: "editor")])
        #expect(editor.runsCode)

        var mail = SimulatedApp(name: "mail", facts: AppFacts())
        let immediate = mail.spawned(1, readiness: .immediate, at: at(0))
        #expect(mail.beginsToRun(immediate[0]) == [])
    }

    /// A message that reaches the process before it runs is answered once it runs, its delay
    /// counted from then.
    @Test func messageBeforeTheProcessRunsIsAnsweredOnceItRuns() {
        let facts = AppFacts(onFetch: .complete(.noData, after: .seconds(1)), launchTime: .seconds(5))
        var mail = SimulatedApp(name: "mail", facts: facts)
        let run = mail.spawned(1, readiness: .immediate, at: at(0))
        #expect(mail.receive(fetch, at: at(2), stalledFor: .zero).isEmpty)
        #expect(mail.answerHeldMessages(at: at(2), stalledFor: .zero).isEmpty)
        #expect(mail.beginsToRun(run[0]) == [])
        let answers = mail.answerHeldMessages(at: at(5), stalledFor: .zero)
        let complete = LifecycleEvent.completeFetch(app: "mail", result: .noData)
        #expect(answers == [SimulatedApp.Doing(time: at(6), launch: 1, kind: .call(complete))])
        #expect(mail.answerHeldMessages(at: at(5), stalledFor: .zero).isEmpty)
    }

    /// A stalled app answers once the stall is over, after its own delay.
    @Test func stalledAppAnswersAfterTheStall() {
        var mail = SimulatedApp(name: "mail", facts: AppFacts())
        let run = mail.spawned(1, readiness: .immediate, at: at(0))
        _ = mail.beginsToRun(run[0])
        let answers = mail.receive(fetch, at: at(10), stalledFor: .seconds(4))
        #expect(answers.map(\.time) == [at(15)])
    }

    /// What an earlier launch meant to do is not done once another launch runs, or none.
    @Test func doingsOfAnEndedLaunchAreNotCurrent() {
        var mail = SimulatedApp(name: "mail", facts: AppFacts(launchTime: .seconds(2)))
        let first = mail.spawned(1, readiness: .immediate, at: at(0))
        _ = mail.receive(fetch, at: at(1), stalledFor: .zero)
        let second = mail.spawned(2, readiness: .immediate, at: at(1))
        #expect(!mail.isCurrent(first[0]))
        #expect(mail.beginsToRun(first[0]) == nil)
        #expect(!mail.runsCode)
        #expect(mail.beginsToRun(second[0]) == [])
        // The fetch reached the first launch, which is gone: the second has nothing to answer.
        #expect(mail.answerHeldMessages(at: at(3), stalledFor: .zero).isEmpty)
        let answers = mail.receive(fetch, at: at(3), stalledFor: .zero)
        #expect(answers.map(\.launch) == [2])
        mail.processEnded()
        #expect(mail.launch == nil)
        #expect(!mail.isCurrent(answers[0]))
        #expect(mail.receive(fetch, at: at(4), stalledFor: .zero).isEmpty)
    }

    /// `end-task NAME` finds an open task by its name until the task ends, by the app's own
    /// answer to its expiration call, by `end-task`, or with its process.
    @Test func openTasksAnswerToTheirNameUntilTheyEnd() {
        var mail = SimulatedApp(name: "mail", facts: AppFacts())
        let run = mail.spawned(1, readiness: .immediate, at: at(0))
        _ = mail.beginsToRun(run[0])
        mail.taskBegun(1, named: "sync")
        mail.taskBegun(2, named: "upload")
        mail.taskBegun(3, named: "sync")
        #expect(SimulatedApp.taskID(.name("sync"), of: "mail", in: mail) == .success(1))
        #expect(SimulatedApp.taskID(.id(7), of: "mail", in: mail) == .success(7))

        let warning = AppMessage.expirationWarning(taskIDs: [1], remaining: .seconds(5))
        let answers = mail.receive(warning, at: at(20), stalledFor: .zero)
        #expect(answers == [SimulatedApp.Doing(time: at(20), launch: 1, kind: .call(.endTask(app: "mail", taskID: 1)))])
        #expect(SimulatedApp.taskID(.name("sync"), of: "mail", in: mail) == .success(3))

        mail.taskEnded(3)
        #expect(
            SimulatedApp.taskID(.name("sync"), of: "mail", in: mail) == .failure(.noOpenTask(named: "sync", of: "mail"))
        )
        mail.processEnded()
        #expect(
            SimulatedApp.taskID(.name("upload"), of: "mail", in: mail)
                == .failure(.noOpenTask(named: "upload", of: "mail")))
        let unknown = SimulatedApp.taskID(.name("sync"), of: "ghost", in: nil)
        #expect(unknown == .failure(.noOpenTask(named: "sync", of: "ghost")))
    }
}
