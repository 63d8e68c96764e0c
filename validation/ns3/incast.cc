// ns-3 (3.44) side of the validation suite's incast case: N senders s_i -(1 Gb/s, 25 us)->
// R -(100 Mb/s, 25 us, QUEUE packets waiting at most)-> d, each sending one flow of SIZE
// bytes at time 0 (the incast example of the super-packet paper's section 4), with the
// TCP settings of python/superpacket/validation/ns3.py (ns-2's NewReno agent: classic
// recovery, no SACK, no limited transmit, no timestamps, no delayed ACK, initial window
// 10, minimum RTO 200 ms, initial RTO 1 s).
//
// Prints one JSON object: each flow's completion time (from its start, the SYN, until the
// receiver holds every byte), their mean, and how many took longer than the minimum RTO.
#include "common.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

static std::map<uint32_t, uint64_t> g_rx;  // sender address -> bytes received
static std::map<uint32_t, double> g_done;  // sender address -> completion time
static uint64_t g_size = 14600;

static void
Rx(Ptr<const Packet> p, const Address& from)
{
    uint32_t a = InetSocketAddress::ConvertFrom(from).GetIpv4().Get();
    g_rx[a] += p->GetSize();
    if (g_rx[a] >= g_size && g_done.find(a) == g_done.end())
    {
        g_done[a] = Simulator::Now().GetSeconds();
    }
}

int
main(int argc, char* argv[])
{
    uint32_t senders = 10;
    uint32_t queue = 50;
    uint32_t seed = 1;
    double duration = 3;
    std::string cc = "ns3::TcpNewReno";
    std::string recovery = "classic";
    bool sack = false;
    bool limitedTransmit = false;
    CommandLine cmd;
    cmd.AddValue("senders", "senders", senders);
    cmd.AddValue("queue", "R -> d packets waiting at most", queue);
    cmd.AddValue("size", "bytes per flow", g_size);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("duration", "seconds", duration);
    cmd.AddValue("cc", "TCP congestion control TypeId", cc);
    cmd.AddValue("recovery", "classic | prr", recovery);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("limitedTransmit", "RFC 3042 limited transmit", limitedTransmit);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    ConfigureTcp(cc, recovery, sack, limitedTransmit);

    NodeContainer s, r, d;
    s.Create(senders);
    r.Create(1);
    d.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();
    PointToPointHelper up = Link("1Gbps", "25us");
    PointToPointHelper down = Link("100Mbps", "25us");
    TrafficControlHelper big = Fifo("1000p");
    TrafficControlHelper bottleneck = Fifo(std::to_string(queue - 1) + "p");
    Ipv4AddressHelper addr;
    for (uint32_t i = 0; i < senders; ++i)
    {
        NetDeviceContainer a = up.Install(s.Get(i), r.Get(0));
        big.Install(a);
        addr.SetBase(Ipv4Address(("10.1." + std::to_string(i) + ".0").c_str()), "255.255.255.0");
        addr.Assign(a);
    }
    NetDeviceContainer b = down.Install(r.Get(0), d.Get(0));
    bottleneck.Install(b.Get(0));
    big.Install(b.Get(1));
    addr.SetBase("10.2.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(b);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9000));
    ApplicationContainer sk = sink.Install(d.Get(0));
    sk.Start(Seconds(0));
    sk.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&Rx));
    for (uint32_t i = 0; i < senders; ++i)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), 9000));
        bulk.SetAttribute("MaxBytes", UintegerValue(g_size));
        bulk.SetAttribute("SendSize", UintegerValue(1460));
        ApplicationContainer c = bulk.Install(s.Get(i));
        c.Start(Seconds(0));
    }
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double sum = 0;
    uint32_t slow = 0;
    std::string fcts;
    for (const auto& [a, t] : g_done)
    {
        sum += t;
        slow += t > 0.2;
        fcts += (fcts.empty() ? "" : ", ") + std::to_string(t);
    }
    std::printf("{\"completed\": %zu, \"mean_fct_s\": %.6f, \"flows_over_min_rto\": %u, \"fct_s\": [%s]}\n",
                g_done.size(),
                g_done.empty() ? 0.0 : sum / g_done.size(),
                slow,
                fcts.c_str());
    Simulator::Destroy();
    return 0;
}
